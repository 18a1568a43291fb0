package io.logbench.source;

import io.logbench.dataset.Dataset;
import io.logbench.schedule.Timeline;
import io.logbench.schedule.TimestampMode;

/** A test timeline in ORIGINAL mode: each line keeps its dataset time. */
final class OriginalTimeline implements Timeline {

  private static final long serialVersionUID = 1L;

  private final Dataset dataset;
  private final long firstIndex;
  private final long lines;

  OriginalTimeline(Dataset dataset, long firstIndex, long lines) {
    this.dataset = dataset;
    this.firstIndex = firstIndex;
    this.lines = lines;
  }

  @Override
  public TimestampMode mode() {
    return TimestampMode.ORIGINAL;
  }

  @Override
  public long lines() {
    return lines;
  }

  @Override
  public long lineMillis(long index, long datasetMillis, long runStartMillis) {
    return datasetMillis;
  }

  @Override
  public long countBefore(long epochMillis, long runStartMillis) {
    long n = dataset.countBefore(epochMillis) - firstIndex;
    return Math.max(0, Math.min(lines, n));
  }
}
