package io.logbench.config;

import io.logbench.schedule.TimestampMode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;

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
 * @param runDir where this run's files go
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
    Path runDir) {

  /** The same run with another window size (checked like the file's). */
  public RunConfig withWindow(Duration newWindow) {
    ConfigLoader.checkWindow("--window", newWindow);
    return new RunConfig(name, dataset, schedule, timestamps, batchLines, newWindow, zone, parallelism, runDir);
  }
}
