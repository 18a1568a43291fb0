package io.logbench.schedule;

import io.logbench.dataset.Dataset;

/**
 * The {@link Timeline} of a run that sends dataset lines {@code [firstIndex, firstIndex +
 * schedule.lines())} on a schedule; its line indexes are run-relative ({@code datasetIndex -
 * firstIndex}), like the schedule's. Made by {@link Timelines#of}.
 *
 * <p>{@code original} counts with the dataset's own arithmetic; {@code now} and {@code
 * compressed} count by binary search over {@link #lineMillis}, which is non-decreasing, so
 * counts are exact and agree with the timestamps sent.
 */
public final class ScheduledTimeline implements Timeline {

  private static final long serialVersionUID = 1L;

  private final TimestampMode mode;
  private final Dataset dataset;
  private final long firstIndex;
  private final Schedule schedule;
  private final long lines;
  // compressed only: the dataset span [spanStart, spanStart + spanMillis) maps onto the run's
  // [0, runSpanNanos).
  private final long spanStartMillis;
  private final long spanNanosTimesMillis;
  private final long runSpanNanos;

  ScheduledTimeline(TimestampMode mode, Dataset dataset, long firstIndex, Schedule schedule) {
    this.mode = mode;
    this.dataset = dataset;
    this.firstIndex = firstIndex;
    this.schedule = schedule;
    this.lines = schedule.lines();
    if (mode == TimestampMode.COMPRESSED && lines > 0) {
      this.spanStartMillis = dataset.timestampMillis(firstIndex);
      long spanMillis = dataset.timestampMillis(firstIndex + lines - 1) + 1 - spanStartMillis;
      this.spanNanosTimesMillis = Math.multiplyExact(spanMillis, Exact.NANOS_PER_MILLI);
      this.runSpanNanos = schedule.durationNanos();
    } else {
      this.spanStartMillis = 0;
      this.spanNanosTimesMillis = 1;
      this.runSpanNanos = 0;
    }
  }

  @Override
  public TimestampMode mode() {
    return mode;
  }

  @Override
  public long lines() {
    return lines;
  }

  /** The dataset the lines come from. */
  public Dataset dataset() {
    return dataset;
  }

  /** Dataset index of the run's line 0. */
  public long firstIndex() {
    return firstIndex;
  }

  /** The schedule the lines are sent on. */
  public Schedule schedule() {
    return schedule;
  }

  /**
   * {@inheritDoc} {@code index} is run-relative; {@code datasetMillis} must be the dataset's own
   * time of line {@code firstIndex + index} ({@code now} ignores it).
   */
  @Override
  public long lineMillis(long index, long datasetMillis, long runStartMillis) {
    switch (mode) {
      case ORIGINAL:
        return datasetMillis;
      case NOW:
        // The scheduled send time, not the actual one: a lagging run keeps its timestamps, so
        // expected counts stay arithmetic and lag shows up as latency instead.
        return runStartMillis + Math.floorDiv(schedule.dueNanos(index), Exact.NANOS_PER_MILLI);
      case COMPRESSED:
        return runStartMillis
            + Exact.mulDivFloor(datasetMillis - spanStartMillis, runSpanNanos, spanNanosTimesMillis);
      default:
        throw new IllegalStateException("Unknown timestamp mode " + mode + ".");
    }
  }

  @Override
  public long countBefore(long epochMillis, long runStartMillis) {
    if (mode == TimestampMode.ORIGINAL) {
      long n = dataset.countBefore(epochMillis) - firstIndex;
      return Math.max(0, Math.min(lines, n));
    }
    long lo = 0;
    long hi = lines;
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      long ts = lineMillis(mid, datasetMillisOf(mid), runStartMillis);
      if (ts < epochMillis) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private long datasetMillisOf(long index) {
    return mode == TimestampMode.NOW ? 0 : dataset.timestampMillis(firstIndex + index);
  }

  @Override
  public String toString() {
    return "ScheduledTimeline[mode=" + mode.key() + ", dataset=" + dataset.name() + ", firstIndex="
        + firstIndex + ", schedule=" + schedule + "]";
  }
}
