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
 * @param parallelism Flink parallelism (stripes of the source)
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
    this(name, dataset, schedule, timestamps, batchLines, window, zone, parallelism, runDir, backends,
        checkpointInterval, ledgerKafka, checkpointDir, visibility, null);
  }

  public RunConfig {
    visibility = visibility == null ? io.logbench.sink.VisibilitySettings.defaults() : visibility;
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
    return new RunConfig(name, dataset, schedule, timestamps, batchLines, newWindow, zone, parallelism, runDir,
        backends, checkpointInterval, ledgerKafka, checkpointDir, visibility, canary);
  }

  /** Whether this is a canary's run file (it has a {@code canary:} block). */
  public boolean isCanary() {
    return canary != null;
  }
}
