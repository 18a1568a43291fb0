package io.logbench.job;

import io.logbench.canary.CanaryChecks;
import io.logbench.canary.CanaryGrid;
import io.logbench.canary.CanarySettings;
import io.logbench.canary.CanaryTarget;
import io.logbench.plan.RunPlan;
import io.logbench.rundir.RunDir;
import io.logbench.schedule.Gaps;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The {@code canary} job: the generate job's pipelines, one per backend, open-ended (a constant
 * rate without end, the lines of its {@link Gaps} skipped), each backend's ledger followed by its
 * checks ({@link CanaryChecks}) instead of ledger files, so one job sends, counts and judges. It
 * runs until {@link #stop}: a clean stop takes a savepoint under {@value #SAVEPOINTS} in the
 * checkpoint directory and ends the job without draining it, so the next start goes on from
 * there; a killed JVM leaves its newest checkpoint, which a restore claims (Flink deletes it once
 * a newer one subsumes it), so the checkpoint directory holds about one checkpoint however often
 * the canary restarts.
 */
public final class CanaryJob {

  /** The folder of the clean stops' savepoints, in the checkpoint directory. */
  public static final String SAVEPOINTS = "savepoints";

  private final GenerateJob generate;
  private final String name;
  private final RunDir checkpointDir;
  private volatile JobClient client;

  /**
   * The canary of {@code plan} ({@link RunPlan#canary}) in the local run directory {@code runDir}.
   *
   * @param firstWindowStart the window the checks start with when nothing is restored
   */
  public CanaryJob(RunPlan plan, CanarySettings settings, Path runDir, String runId, long runStartMillis, Gaps gaps,
      RunDir checkpointDir, long firstWindowStart) {
    this.name = plan.config().name();
    this.checkpointDir = checkpointDir;
    String dir = runDir.toAbsolutePath().toString();
    String zone = plan.config().zone().getId();
    this.generate = GenerateJob.of(plan).runDir(runDir).runStartMillis(runStartMillis).runId(runId)
        .checkpointDir(checkpointDir).gaps(gaps).claimRestored()
        .openEnded(settings.horizon(), (backend, rows, run, grid) -> CanaryChecks.attach(rows,
            new CanaryTarget(backend.spec(), run, new CanaryGrid(grid, run.times(), run.firstIndex()), settings,
                firstWindowStart, dir, zone)));
  }

  /** Restores the job from {@code snapshot}, a retained checkpoint or a savepoint of this run. */
  public CanaryJob resumeFrom(RunDir snapshot) {
    generate.resumeFrom(snapshot);
    return this;
  }

  /** The job continues the run in its directory without a snapshot (its leases and restore records stay). */
  public CanaryJob continuesRun() {
    generate.continuesRun();
    return this;
  }

  /** Builds the job into {@code env} and submits it; returns at once. */
  public JobClient start(StreamExecutionEnvironment env) throws Exception {
    generate.build(env);
    client = env.executeAsync("logbench canary " + name);
    return client;
  }

  /**
   * Stops the job {@link #start} submitted, from any thread: without {@code cancel}, with a
   * savepoint and no drain (the sources stop where they are; the next start goes on from the
   * savepoint); with it, Flink cancels the job, whose newest checkpoint stays for the next start.
   */
  public CompletableFuture<String> stop(boolean cancel) {
    JobClient c = client;
    if (c == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("The canary job has not started yet."));
    }
    if (cancel) {
      return c.cancel().thenApply(v -> "cancelled");
    }
    return c.stopWithSavepoint(false, checkpointDir.resolve(SAVEPOINTS).uri(), SavepointFormatType.CANONICAL);
  }
}
