package io.logbench.plan;

import io.logbench.schedule.TimestampMode;
import io.logbench.sink.BackendConfig;
import io.logbench.rundir.RunDir;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

/**
 * A validated run file: dataset, schedule, timestamp mode, batching, windows. Build it with
 * {@link ConfigLoader}; every value here has passed its checks.
 *
 * @param name run name, used for the run directory
 * @param dataset which lines
 * @param schedule when each line is due
 * @param timestamps which time each line carries
 * @param batchLines lines per batch (one request to a backend)
 * @param window window size of the expected counts and verification; divides a day
 * @param zone zone in which windows and day files are aligned and times printed
 * @param parallelism Flink parallelism (stripes of the source) of the jobs that follow the
 *     schedule ({@code generate}, {@code canary}): the run file's, or {@link #autoParallelism}
 * @param parallelismAuto whether the run file left the parallelism to logbench ({@code auto} or
 *     no key): then {@code dataset} and {@code publish}, which make lines as fast as they can,
 *     use {@link #DEFAULT_PARALLELISM} ({@link #writerParallelism})
 * @param runDir where this run's files go ({@code run.dir}: a path, or a URI of a Flink file system)
 * @param backends the backends the {@code generate} job delivers to, in file order (names unique)
 * @param checkpointInterval how often the generate job checkpoints (at-least-once recovery)
 * @param ledgerKafka where the ledger rows also go as Avro records ({@code run.ledger_kafka}), or null
 * @param checkpointDir where the generate job keeps its retained checkpoints ({@code
 *     run.checkpoint_dir}), or null for {@value #DEFAULT_CHECKPOINT_DIR} in the run directory
 * @param visibility how generate samples write-to-visible latency ({@code visibility:}), before each
 *     backend's own keys; null for the defaults
 * @param canary the {@code canary:} block of a run file for {@code logbench canary} (a constant
 *     rate without end, {@code now} timestamps, app-json lines), or null for a bounded run
 */
public record RunConfig(
    String name,
    DatasetSpec dataset,
    ScheduleSpec schedule,
    TimestampMode timestamps,
    int batchLines,
    Duration window,
    ZoneId zone,
    int parallelism,
    boolean parallelismAuto,
    RunDir runDir,
    List<BackendConfig> backends,
    Duration checkpointInterval,
    io.logbench.ledger.LedgerKafka ledgerKafka,
    RunDir checkpointDir,
    io.logbench.sink.VisibilitySettings visibility,
    io.logbench.canary.CanarySettings canary) {

  /** A bounded run's config (no {@code canary:} block). */
  public RunConfig(String name, DatasetSpec dataset, ScheduleSpec schedule, TimestampMode timestamps, int batchLines,
      Duration window, ZoneId zone, int parallelism, RunDir runDir, List<BackendConfig> backends,
      Duration checkpointInterval, io.logbench.ledger.LedgerKafka ledgerKafka, RunDir checkpointDir,
      io.logbench.sink.VisibilitySettings visibility) {
    this(name, dataset, schedule, timestamps, batchLines, window, zone, parallelism, false, runDir, backends,
        checkpointInterval, ledgerKafka, checkpointDir, visibility, null);
  }

  public RunConfig {
    visibility = visibility == null ? io.logbench.sink.VisibilitySettings.defaults() : visibility;
  }

  /** The value of {@code parallelism} that leaves it to logbench (as leaving the key out does). */
  public static final String AUTO = "auto";

  /**
   * The parallelism of {@code dataset} and {@code publish}, and of {@code generate} for a replay
   * or an unpaced schedule, when the run file leaves it to logbench.
   */
  public static final int DEFAULT_PARALLELISM = 2;

  /**
   * Requests a second one source subtask carries at the schedule's peak, when the run file leaves
   * the parallelism to logbench. Measured (docs/benchmarks.md, "Eleventh round"): one subtask held
   * 1,000 requests of 100 lines a second into a real VictoriaLogs on the same two cores, p95 under
   * 200 ms, for less CPU than two (each subtask is a source task, an HTTP I/O thread, buffer
   * flushers and ledger tasks, each waking on its own).
   */
  public static final int REQUESTS_PER_SUBTASK = 1000;

  /**
   * The parallelism logbench picks for a schedule: for a constant rate or a ladder, one subtask per
   * {@value #REQUESTS_PER_SUBTASK} requests a second at the peak rate ({@code batchLines} lines a
   * request), at least one; for a replay (its rate follows the dataset's curve) or an unpaced
   * schedule, {@value #DEFAULT_PARALLELISM}.
   */
  public static int autoParallelism(ScheduleSpec schedule, int batchLines) {
    double peak = switch (schedule.kind()) {
      case ScheduleSpec.CONSTANT -> schedule.rate();
      case ScheduleSpec.LADDER -> schedule.steps().stream().mapToDouble(Double::doubleValue).max().orElse(0);
      default -> Double.NaN;
    };
    if (!(peak > 0)) {
      return DEFAULT_PARALLELISM;
    }
    double requests = peak / batchLines;
    return (int) Math.max(1, Math.min(1024, Math.ceil(requests / REQUESTS_PER_SUBTASK)));
  }

  /**
   * The parallelism of the commands that make lines as fast as they can ({@code dataset}, {@code
   * publish}): the run file's, or {@value #DEFAULT_PARALLELISM} when it leaves it to logbench.
   */
  public int writerParallelism() {
    return parallelismAuto ? DEFAULT_PARALLELISM : parallelism;
  }

  /** Checkpoint interval when {@code run.checkpoint_interval} is not given. */
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(10);

  /** The checkpoint directory, in the run directory, when {@code run.checkpoint_dir} is not given. */
  public static final String DEFAULT_CHECKPOINT_DIR = "checkpoints";

  /**
   * Where the generate job of a run in {@code runDirectory} (the run file's {@code run.dir} or
   * {@code --run-dir}) keeps its retained checkpoints: {@code run.checkpoint_dir}, or {@value
   * #DEFAULT_CHECKPOINT_DIR} in the run directory.
   */
  public RunDir checkpointDir(RunDir runDirectory) {
    return checkpointDir != null ? checkpointDir : runDirectory.resolve(DEFAULT_CHECKPOINT_DIR);
  }

  /** The same run with another window size (checked like the file's). */
  public RunConfig withWindow(Duration newWindow) {
    ConfigLoader.checkWindow("--window", newWindow);
    return new RunConfig(name, dataset, schedule, timestamps, batchLines, newWindow, zone, parallelism,
        parallelismAuto, runDir, backends, checkpointInterval, ledgerKafka, checkpointDir, visibility, canary);
  }

  /** Whether this is a canary's run file (it has a {@code canary:} block). */
  public boolean isCanary() {
    return canary != null;
  }
}
