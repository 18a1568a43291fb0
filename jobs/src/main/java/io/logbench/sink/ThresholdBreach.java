package io.logbench.sink;

import java.io.Serializable;

/**
 * A load-test threshold that one task of a backend saw crossed, after which that task sent
 * nothing more: kept for the run report.
 *
 * @param backend backend name
 * @param subtask the task that judged it
 * @param epochMillis when it was crossed
 * @param runOffsetMillis how far into the run (from the run's start by the schedule)
 * @param threshold which threshold, as configured (e.g. {@code "failed_rate > 0.01"})
 * @param observed the value that crossed it (e.g. {@code "0.0312 (13 of 417 requests)"})
 */
public record ThresholdBreach(
    String backend, int subtask, long epochMillis, long runOffsetMillis, String threshold, String observed)
    implements Serializable {

  /** One line for logs and reports. */
  public String describe() {
    return "backend " + backend + " (task " + subtask + ") crossed " + threshold + " with " + observed
        + " at " + java.time.Instant.ofEpochMilli(epochMillis) + ", "
        + String.format(java.util.Locale.ROOT, "%.1f", runOffsetMillis / 1000.0)
        + " s into the run; it sends nothing more";
  }
}
