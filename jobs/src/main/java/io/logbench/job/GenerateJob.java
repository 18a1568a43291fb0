package io.logbench.job;

import io.logbench.delivery.DeliveryFunction;
import io.logbench.job.internal.CollectSinks;
import io.logbench.ledger.stream.Ledger;
import io.logbench.plan.RunPlan;
import io.logbench.publish.Pacing;
import io.logbench.publish.Replay;
import io.logbench.replay.ReplayFiles;
import io.logbench.replay.Replays;
import io.logbench.rundir.RunDir;
import io.logbench.schedule.TimestampMode;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.DeliveryContext;
import io.logbench.sink.RunContext;
import io.logbench.sink.ThresholdBreach;
import io.logbench.sink.WindowGrid;
import io.logbench.source.DatasetSource;
import io.logbench.source.DatasetSourceBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * The {@code generate} job: one pipeline per backend, each from its own {@link DatasetSource}
 * through its own {@link DeliveryFunction}, with operator names and uids per backend and no
 * operator shared. Every backend gets the same lines on the same schedule from one common run
 * start, and with Flink's region failover (the default {@code
 * jobmanager.execution.failover-strategy: region}) a failing backend restarts only its own
 * pipeline. Anything joined after the outcomes (a union for the ledger) would join the regions
 * again, so sinks of outcomes must stay per backend too.
 *
 * <p>{@link #build} wires the pipelines and returns each backend's outcomes; {@link #run} also
 * collects them per backend at the client into {@link BackendSummary}s.
 */
public final class GenerateJob {

  /** How long after the client starts the job the run begins, by default: time to deploy it. */
  public static final Duration DEFAULT_START_LEAD = Duration.ofSeconds(3);

  private final RunPlan plan;
  private final List<BackendConfig> backends;
  private final Duration checkpointInterval;
  private long runStartMillis;

  /**
   * A job of {@code plan} to {@code backends} (names unique), checkpointing every {@code
   * checkpointInterval}.
   */
  public GenerateJob(RunPlan plan, List<BackendConfig> backends, Duration checkpointInterval) {
    if (backends.isEmpty()) {
      throw new IllegalArgumentException("A generate job needs at least one backend; the run file has none.");
    }
    this.plan = plan;
    this.backends = List.copyOf(backends);
    this.checkpointInterval = checkpointInterval;
  }

  /** The job of a run file: its plan, backends and checkpoint interval. */
  public static GenerateJob of(RunPlan plan) {
    return new GenerateJob(plan, plan.config().backends(), plan.config().checkpointInterval());
  }

  /**
   * Fixes the run's start (epoch ms), common to every backend; by default it is {@link
   * #DEFAULT_START_LEAD} after {@link #build} is called.
   */
  public GenerateJob runStartMillis(long startMillis) {
    this.runStartMillis = startMillis;
    return this;
  }

  public long runStartMillis() {
    return runStartMillis;
  }

  /** The run's id, stamped on every line where the backend allows it (none unless set). */
  public GenerateJob runId(String id) {
    this.runId = id;
    return this;
  }

  private String runId;

  /** Writes a ledger per backend under {@code dir/<backend>/} (off unless set). */
  public GenerateJob ledgerDir(java.nio.file.Path dir) {
    this.ledgerDir = RunDir.of(dir);
    return this;
  }

  private RunDir ledgerDir;
  private ReplayFiles replay;

  private RunDir checkpointDir;
  private RunDir resumeFrom;
  private boolean claimRestored;
  private boolean continuesRun;
  private io.logbench.schedule.Gaps gaps = io.logbench.schedule.Gaps.none();
  private Duration openEndedHorizon;
  private LedgerRows ledgerRows;

  /**
   * Takes each backend's ledger rows in an open-ended run (a canary), where no ledger file is
   * written: the consumer adds its own operators after them, per backend, so the backends stay in
   * separate failover regions.
   */
  @FunctionalInterface
  public interface LedgerRows {
    /**
     * Wires what consumes {@code rows}, the ledger's upserts of {@code backend}'s windows.
     *
     * @param run the run (id, dataset, first line, times with their gaps)
     * @param grid the run's windows
     */
    void attach(BackendConfig backend, DataStream<io.logbench.ledger.LedgerEntry> rows, RunContext run, WindowGrid grid);
  }

  /**
   * Makes the run open-ended (a canary, which runs until it is stopped): each backend's ledger
   * keeps a window's state until {@code horizon} after its end only ({@link Ledger.Builder#openEnded}),
   * writes no file, and hands its rows to {@code rows}.
   */
  public GenerateJob openEnded(Duration horizon, LedgerRows rows) {
    this.openEndedHorizon = horizon;
    this.ledgerRows = rows;
    return this;
  }

  /**
   * Lines the run never sends: each source skips the batches in them, and every expected count
   * (ledger, checks) leaves them out ({@link #expectedCounts}). A canary started again after a
   * while down skips what was due while it was down.
   */
  public GenerateJob gaps(io.logbench.schedule.Gaps skipped) {
    this.gaps = skipped;
    return this;
  }

  /** The run's expected counts from its start, its gaps left out. */
  public io.logbench.schedule.ExpectedCounts expectedCounts() {
    return plan.expectedCounts(runStartMillis).withGaps(gaps);
  }

  /**
   * Restores from {@link #resumeFrom} in Flink's CLAIM mode: the job owns the checkpoint it
   * restored from and deletes it once a newer one subsumes it, so a run restarted many times
   * keeps one checkpoint, not one per restart.
   */
  public GenerateJob claimRestored() {
    this.claimRestored = true;
    return this;
  }

  /**
   * The job continues a run of the same run directory without a checkpoint to restore (a canary
   * killed before its first one): the leases and restore records of the run are kept, so what it
   * sends again is recorded as after any restore.
   */
  public GenerateJob continuesRun() {
    this.continuesRun = true;
    return this;
  }

  /**
   * Keeps the job's checkpoints in {@code dir} (a local directory, or any path Flink's file
   * systems take) and retains the latest when the job is cancelled, fails for good or its JVM
   * dies, so {@link #resumeFrom} can continue the run from it (off unless set: checkpoints then
   * live in the JobManager's memory).
   */
  public GenerateJob checkpointDir(java.nio.file.Path dir) {
    return checkpointDir(RunDir.of(dir));
  }

  /** As {@link #checkpointDir(java.nio.file.Path)}, for a directory anywhere Flink's file systems reach. */
  public GenerateJob checkpointDir(RunDir dir) {
    this.checkpointDir = dir;
    return this;
  }

  /**
   * Continues a run from one of its retained checkpoints ({@code chk-N}, the directory holding
   * {@code _metadata}) instead of starting it: the same run start and run id must be set, and the
   * run directory's leases and restore records are kept, so the restored sources and deliveries
   * record what they send again like after any other restore.
   */
  public GenerateJob resumeFrom(java.nio.file.Path checkpoint) {
    return resumeFrom(RunDir.of(checkpoint));
  }

  /** As {@link #resumeFrom(java.nio.file.Path)}, for a checkpoint anywhere Flink's file systems reach. */
  public GenerateJob resumeFrom(RunDir checkpoint) {
    this.resumeFrom = checkpoint;
    return this;
  }

  /**
   * Writes into the run directory {@code dir}: a ledger per backend under {@code ledger/<backend>/},
   * the stripes' leases and the restore records ({@link ReplayFiles}: what restores sent again).
   * The job is a fresh run: {@link #build} clears the leases and records of an earlier one (unless
   * it {@link #resumeFrom resumes} one).
   */
  public GenerateJob runDir(java.nio.file.Path dir) {
    return runDir(RunDir.of(dir));
  }

  /**
   * As {@link #runDir(java.nio.file.Path)}, for a run directory anywhere ({@link RunDir}): one that
   * is not local gets the layouts of files written once ({@link
   * io.logbench.ledger.stream.LedgerFilesWriter}, {@link ReplayFiles}).
   */
  public GenerateJob runDir(RunDir dir) {
    this.ledgerDir = dir.absolute().resolve("ledger");
    this.replay = ReplayFiles.in(dir);
    return this;
  }

  /**
   * The source of {@code backend} for this plan: its own instance, the same lines as every
   * backend's, keeping its stripes' leases in the run directory when there is one, and ending its
   * input only after a checkpoint when the backend asks ({@link BackendSpec#endsAfterCheckpoint}),
   * and holding the lines escaped for a JSON string when the backend writes them so and {@code
   * jsonEscapedLines} ({@link BackendSpec#jsonStringLines}).
   */
  DatasetSource source(String backend, BackendSpec spec, boolean jsonEscapedLines) {
    DatasetSourceBuilder b = DatasetSource.builder()
        .backend(backend)
        .endAfterCheckpoint(spec.endsAfterCheckpoint())
        .jsonEscapedLines(jsonEscapedLines && spec.jsonStringLines())
        .dataset(plan.dataset())
        .firstIndex(plan.firstIndex())
        .schedule(plan.schedule())
        .timeline(plan.timeline())
        .batchSize(plan.config().batchLines())
        .tick(plan.config().schedule().tick())
        .gaps(gaps)
        .runStartMillis(runStartMillis);
    if (replay != null) {
      b.leases(replay, backend);
    }
    return b.build();
  }

  /**
   * One backend's batches: from its own {@link DatasetSource}, or, for a dataset published to
   * Kafka, from its own reading of the topic ({@link Replay}): the same batches either way. With
   * {@code jsonEscapedLines}, lines a backend writes inside JSON strings come escaped for them
   * when the dataset makes them so; a pipeline, which stamps raw lines, asks for raw ones.
   */
  DataStream<io.logbench.dataset.LineBatch> batches(StreamExecutionEnvironment env, String name, BackendSpec spec,
      boolean jsonEscapedLines) {
    int parallelism = plan.config().parallelism();
    if (plan.published() != null) {
      if (spec.endsAfterCheckpoint()) {
        // ConfigLoader refuses such a run file; a plan built otherwise must not get this far
        throw new IllegalStateException("Backend '" + name + "' ends after a checkpoint, which a dataset read"
            + " from Kafka cannot do.");
      }
      return Replay.batches(env, plan.published(), name,
          new Pacing(plan.firstIndex(), plan.config().batchLines(), plan.schedule(), runStartMillis),
          plan.lines(), plan.timeline(), plan.dataset().streams(), parallelism);
    }
    return env.fromSource(source(name, spec, jsonEscapedLines), WatermarkStrategy.noWatermarks(),
            "source[" + name + "]")
        .uid("source-" + name)
        .setParallelism(parallelism);
  }

  /** Windows of the run's size aligned to midnight in the run's zone. */
  WindowGrid grid() {
    return WindowGrid.aligned(plan.config().window().toMillis(), plan.config().zone(), gridAnchor());
  }

  /** A time the run's window grid is aligned near: the first line's own time, or the run start. */
  public long gridAnchor() {
    return plan.config().timestamps() == TimestampMode.ORIGINAL
        ? plan.dataset().timestampMillis(plan.firstIndex()) : runStartMillis;
  }

  /** Wires one pipeline per backend into {@code env}; returns each backend's outcomes, by name. */
  public Map<String, DataStream<BatchOutcome>> build(StreamExecutionEnvironment env) {
    if (runStartMillis == 0) {
      runStartMillis = System.currentTimeMillis() + DEFAULT_START_LEAD.toMillis();
    }
    env.enableCheckpointing(checkpointInterval.toMillis());
    org.apache.flink.configuration.Configuration conf = new org.apache.flink.configuration.Configuration();
    if (checkpointDir != null) {
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir.uri());
      conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
          ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    }
    if (resumeFrom != null) {
      conf.set(StateRecoveryOptions.SAVEPOINT_PATH, resumeFrom.uri());
      conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
      if (claimRestored) {
        conf.set(StateRecoveryOptions.RESTORE_MODE, org.apache.flink.core.execution.RecoveryClaimMode.CLAIM);
      }
    }
    env.configure(conf);
    if (replay != null && resumeFrom == null && !continuesRun) {
      try {
        replay.clear(); // a fresh run: leases left in the directory are an earlier run's
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("Could not clear the replay records of an earlier run in "
            + replay.runDir() + ": " + e.getMessage(), e);
      }
    }
    WindowGrid grid = grid();
    RunContext run = new RunContext(runId, plan.dataset().streams(), plan.dataset(), plan.firstIndex(),
        expectedCounts());
    Map<String, DataStream<BatchOutcome>> out = new LinkedHashMap<>();
    Map<String, DataStream<BatchOutcome>> written = new LinkedHashMap<>();
    for (BackendConfig b : backends) {
      String name = b.name();
      BackendConfig through = b.spec().write();
      DataStream<BatchOutcome> outcomes;
      if (through == null) {
        outcomes = deliver(env, b, run, grid, batches(env, name, b.spec(), true));
      } else {
        // a pipeline: its write is written once, with stamped lines, whatever counts behind it
        DataStream<BatchOutcome> once = written.get(through.name());
        if (once == null) {
          once = deliver(env, through, run, grid, batches(env, through.name(), through.spec(), false)
              .map(new io.logbench.pipeline.StampedLines(runId)).name("stamp[" + through.name() + "]")
              .uid("stamp-" + through.name()));
          written.put(through.name(), once);
        }
        outcomes = through.name().equals(name) ? once
            : once.map(new io.logbench.pipeline.CountedAs(name)).name("counted-as[" + name + "]")
                .uid("counted-as-" + name);
      }
      if (ledgerRows != null) {
        DataStream<io.logbench.ledger.LedgerEntry> rows = Ledger.builder()
            .backends(List.of(name))
            .grid(grid)
            .expected(expectedCounts())
            .zone(plan.config().zone())
            .openEnded(openEndedHorizon)
            .build()
            .rows(outcomes);
        ledgerRows.attach(b, rows, run, grid);
      } else if (ledgerDir != null) {
        // a ledger per backend, so backends stay in separate failover regions
        long[] span = plan.span(runStartMillis);
        DataStream<io.logbench.ledger.LedgerEntry> rows =
            Ledger.builder()
                .backends(List.of(name))
                .grid(grid)
                .expected(expectedCounts())
                .span(span[0], span[1])
                .zone(plan.config().zone())
                .runDir(ledgerDir.resolve(name))
                .build()
                .attach(outcomes);
        if (plan.config().ledgerKafka() != null) {
          if (runId == null) {
            // the records are keyed by run id, so verify --ledger-kafka can find this run's rows
            throw new IllegalStateException("run.ledger_kafka needs the run's id (GenerateJob.runId) to key the"
                + " ledger records by; none is set.");
          }
          plan.config().ledgerKafka().sink(rows, runId, name);
        }
      }
      String skip = io.logbench.visibility.Visibility.skipReason(b.spec(), visibility(b));
      if (skip == null) {
        io.logbench.visibility.Visibility.attach(outcomes, b.spec(), run, visibility(b), plan.span(runStartMillis), grid);
      }
      out.put(name, outcomes);
    }
    return out;
  }

  /** {@code b}'s batches delivered under its delivery mode: one outcome per batch. */
  private DataStream<BatchOutcome> deliver(StreamExecutionEnvironment env, BackendConfig b, RunContext run,
      WindowGrid grid, DataStream<io.logbench.dataset.LineBatch> batches) {
    return b.spec().deliver(batches, new DeliveryContext(b.delivery(), run, grid, plan.schedule(),
        plan.config().zone(), (spec, context, in) -> new DeliveryFunction(spec, context).restoresIn(replay).apply(in),
        new io.logbench.schedule.SkippedBatches(gaps, plan.config().batchLines())));
  }

  /** The name {@code b}'s lines are delivered under: its own, or its pipeline's write's. */
  private static String deliveredAs(BackendConfig b) {
    return b.spec().deliveredAs();
  }

  /** The visibility sampling of backend {@code b}: its own keys over the run file's. */
  private io.logbench.sink.VisibilitySettings visibility(BackendConfig b) {
    return b.common().visibility(plan.config().visibility());
  }

  private volatile List<BackendSummary> live = List.of();

  /**
   * Each backend's sums so far while {@link #run} runs (empty before it collects anything), for
   * progress lines; the same objects {@link Result#backends} returns at the end.
   */
  public List<BackendSummary> progress() {
    return live;
  }

  /** How the job ended. */
  public enum Ending {
    /** Every source reached the end of the run. */
    FINISHED,
    /**
     * {@link #stop} drained it: the sources ended early, every batch already made got its final
     * answer, and the ledger wrote a row for every window (final, as after a whole run).
     */
    STOPPED,
    /**
     * {@link #stop} cancelled it (asked to, or the drain failed): answers still in flight were not
     * waited for, and windows no batch reached have no ledger row.
     */
    CANCELLED
  }

  /**
   * What a run came to.
   *
   * @param ending how the job ended
   * @param visibility each polled backend's visibility figures, by name
   * @param visibilitySkipped why a backend's visibility was not polled, by name
   */
  public record Result(List<BackendSummary> backends, List<ThresholdBreach> breaches, long runStartMillis,
      Ending ending, Map<String, io.logbench.visibility.VisibilityReport> visibility,
      Map<String, String> visibilitySkipped) {

    public Result {
      visibility = visibility == null ? Map.of() : Map.copyOf(visibility);
      visibilitySkipped = visibilitySkipped == null ? Map.of() : Map.copyOf(visibilitySkipped);
    }

    /** A finished run's result without visibility figures. */
    public Result(List<BackendSummary> backends, List<ThresholdBreach> breaches, long runStartMillis) {
      this(backends, breaches, runStartMillis, Ending.FINISHED, null, null);
    }

    /** Every backend in at-least-once mode acknowledged every line (load-test backends aside). */
    public boolean allAcked() {
      return backends.stream()
          .filter(b -> b.mode() == io.logbench.sink.DeliverySettings.Mode.AT_LEAST_ONCE)
          .allMatch(BackendSummary::allAcked);
    }
  }

  /**
   * Builds the job, runs it on {@code env}, and sums each backend's outcomes at the client as
   * they come (one collecting thread per backend, one collect sink per backend so the pipelines
   * stay apart).
   */
  public Result run(StreamExecutionEnvironment env) throws Exception {
    Map<String, DataStream<BatchOutcome>> streams = build(env);
    Map<String, CloseableIterator<BatchOutcome>> iterators = new LinkedHashMap<>();
    // the collect sinks hold what this client has not fetched yet; a resumed job has a new client,
    // which cannot take over the old one's place, so each job's sinks get ids of their own and a
    // resume leaves the old sinks' state unclaimed (execution.state-recovery.ignore-unclaimed-state)
    String collectId = java.util.UUID.randomUUID().toString();
    for (Map.Entry<String, DataStream<BatchOutcome>> e : streams.entrySet()) {
      iterators.put(e.getKey(), CollectSinks.collectInChunks(e.getValue(), "outcomes-" + e.getKey() + "-" + collectId));
    }
    JobClient client = env.executeAsync("logbench generate " + plan.config().name());
    started.complete(client);
    List<BackendSummary> summaries = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (BackendConfig b : backends) {
      BackendSummary summary = new BackendSummary(b.name(), b.delivery().mode(), plan.lines(),
          plan.schedule(), plan.firstIndex());
      summaries.add(summary);
      CloseableIterator<BatchOutcome> it = iterators.get(b.name());
      Thread t = new Thread(() -> {
        try (it) {
          while (it.hasNext()) {
            summary.add(it.next());
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "logbench-outcomes-" + b.name());
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    live = List.copyOf(summaries);
    JobExecutionResult result;
    try {
      result = client.getJobExecutionResult().get();
    } catch (java.util.concurrent.ExecutionException e) {
      if (!cancelled) {
        throw e;
      }
      result = null; // cancelled on request: what was collected so far is the run's outcome
    }
    for (Thread t : threads) {
      t.join();
    }
    Ending ending = cancelled ? Ending.CANCELLED : stopRequested ? Ending.STOPPED : Ending.FINISHED;
    if (failure.get() != null && ending != Ending.CANCELLED) {
      throw new IllegalStateException("Collecting the outcomes of the generate job failed.", failure.get());
    }
    if (replay != null) {
      List<io.logbench.replay.RestoreRecord> records = replay.read();
      for (int i = 0; i < summaries.size(); i++) {
        summaries.get(i).replays(Replays.of(records, deliveredAs(backends.get(i))));
      }
    }
    List<ThresholdBreach> breaches = new ArrayList<>();
    java.util.Set<String> delivered = new java.util.HashSet<>();
    for (BackendConfig b : backends) {
      if (!delivered.add(deliveredAs(b))) {
        continue; // a write counted by several blocks breached once
      }
      Object v = result == null ? null : result.getAccumulatorResult(DeliveryFunction.BREACHES + deliveredAs(b));
      if (v instanceof List<?> list) {
        for (Object o : list) {
          breaches.add((ThresholdBreach) o);
        }
      }
    }
    Map<String, io.logbench.visibility.VisibilityReport> visibility = new LinkedHashMap<>();
    Map<String, String> skipped = new LinkedHashMap<>();
    for (BackendConfig b : backends) {
      String skip = io.logbench.visibility.Visibility.skipReason(b.spec(), visibility(b));
      Object v = result == null ? null : result.getAccumulatorResult(io.logbench.visibility.VisibilityOperator.ACCUMULATOR + b.name());
      if (skip != null) {
        skipped.put(b.name(), skip);
      } else if (v instanceof List<?> list && !list.isEmpty()) {
        visibility.put(b.name(), (io.logbench.visibility.VisibilityReport) list.get(0));
      } else {
        skipped.put(b.name(), result == null ? "the job was cancelled"
            : "the visibility operator reported nothing (the job ended before its input did)");
      }
    }
    deleteStopSavepoint();
    return new Result(summaries, breaches, runStartMillis, ending, visibility, skipped);
  }

  private final java.util.concurrent.CompletableFuture<JobClient> started =
      new java.util.concurrent.CompletableFuture<>();
  private volatile boolean stopRequested;
  private volatile boolean cancelled;
  private volatile RunDir stopSavepoints;

  /**
   * Stops the job {@link #run} runs, from any thread, whenever {@link #run} has submitted it (a
   * call before that waits for the submission). Without {@code cancel}: Flink's stop with a
   * savepoint and a drain: the sources end now, every batch already made is delivered and answered
   * (at-least-once resends included), the ledger writes its rows for every window, and {@link #run}
   * returns {@link Ending#STOPPED}; the future completes when the job has ended so. The savepoint
   * itself (written under the checkpoint directory, or a temporary one) is of no further use, a
   * drained job having ended its input, and is deleted when {@link #run} returns. With {@code
   * cancel}: Flink cancels the job; {@link #run} returns {@link Ending#CANCELLED} with the outcomes
   * collected until then.
   */
  public java.util.concurrent.CompletableFuture<String> stop(boolean cancel) {
    return started.thenCompose(client -> {
      if (cancel) {
        cancelled = true;
        return client.cancel().thenApply(v -> "cancelled");
      }
      stopRequested = true;
      try {
        RunDir dir = checkpointDir != null ? checkpointDir.resolve("stop-savepoint")
            : RunDir.of(java.nio.file.Files.createTempDirectory("logbench-stop-savepoint"));
        stopSavepoints = dir;
        return client.stopWithSavepoint(true, dir.uri(), SavepointFormatType.CANONICAL);
      } catch (java.io.IOException e) {
        return java.util.concurrent.CompletableFuture.<String>failedFuture(e);
      }
    });
  }

  /** Deletes the drained stop's savepoint (it cannot continue the run), if there is one. */
  private void deleteStopSavepoint() {
    RunDir dir = stopSavepoints;
    if (dir == null) {
      return;
    }
    try {
      dir.delete("");
    } catch (java.io.IOException | RuntimeException e) {
      // a leftover savepoint costs disk space only; the run's outcome is unchanged
    }
  }
}
