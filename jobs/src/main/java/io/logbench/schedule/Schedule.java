package io.logbench.schedule;

import java.io.Serializable;

/**
 * When each line is due: a pure function from line index to an offset from the run's start.
 *
 * <p>It is an open model, like k6's arrival-rate executors: a line is due at its time whether or
 * not the backend has taken the lines before it, so a slow backend shows as latency, errors and
 * schedule lag, never as quietly lower load.
 */
public interface Schedule extends Serializable {

  /** Lines this run sends: the dataset's lines, or fewer when the schedule ends first. */
  long lines();

  /**
   * Offset from the run's start, in nanoseconds, at which line {@code index} is due;
   * non-decreasing in {@code index}. Always 0 for an unpaced schedule.
   */
  long dueNanos(long index);

  /**
   * Number of lines due at or before {@code offsetNanos}: those with {@code dueNanos <= offset}.
   * By default a binary search over {@link #dueNanos} itself, so the two never disagree; a
   * schedule with an exact inverse may answer faster.
   */
  default long dueBy(long offsetNanos) {
    long lo = 0;
    long hi = lines();
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (dueNanos(mid) <= offsetNanos) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Offset at which the run ends: the due time of its last line, or the schedule's own end. */
  long durationNanos();

  /** False for "as fast as the backend takes it": then no line has a due time. */
  boolean paced();

  /** The target rate in lines per second at an offset (for reports); NaN when unpaced. */
  double targetRate(long offsetNanos);
}
