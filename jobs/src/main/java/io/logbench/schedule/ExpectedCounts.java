package io.logbench.schedule;

import java.io.Serializable;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The exact number of a run's lines expected in any time window, from its {@link Timeline}: a
 * window's count is {@code countBefore(end) - countBefore(start)}, never a scan of lines, so a
 * month of windows costs one count per window boundary.
 *
 * <p>Windows are half-open, {@code [start, end)}, in epoch milliseconds.
 */
public final class ExpectedCounts implements Serializable {

  private static final long serialVersionUID = 1L;

  /** The most windows one call returns, so that a typo in a window size fails loudly. */
  public static final int MAX_WINDOWS = 50_000_000;

  private final Timeline timeline;
  private final long runStartMillis;
  private final Gaps gaps;

  /** Counts for the run of {@code timeline} that started at {@code runStartMillis}. */
  public ExpectedCounts(Timeline timeline, long runStartMillis) {
    this(timeline, runStartMillis, Gaps.none());
  }

  private ExpectedCounts(Timeline timeline, long runStartMillis, Gaps gaps) {
    this.timeline = Objects.requireNonNull(timeline, "timeline");
    this.runStartMillis = runStartMillis;
    this.gaps = Objects.requireNonNull(gaps, "gaps");
  }

  /**
   * The same run with the lines of {@code skipped} never sent: they are expected in no window
   * ({@link #countBefore} leaves them out), while {@link #indexBefore} still maps times to line
   * indices (sequence ids) as the timeline does.
   */
  public ExpectedCounts withGaps(Gaps skipped) {
    return new ExpectedCounts(timeline, runStartMillis, skipped);
  }

  /** The lines never sent ({@link Gaps#none} for a run without gaps). */
  public Gaps gaps() {
    return gaps;
  }

  /** The timeline counted. */
  public Timeline timeline() {
    return timeline;
  }

  /** Epoch millisecond the run started at. */
  public long runStartMillis() {
    return runStartMillis;
  }

  /** All the run's lines, those of its gaps left out. */
  public long total() {
    return timeline.lines() - gaps.linesBefore(timeline.lines());
  }

  /** Lines expected with timestamps strictly before {@code epochMillis}: those of the gaps left out. */
  public long countBefore(long epochMillis) {
    long index = indexBefore(epochMillis);
    return gaps.isEmpty() ? index : index - gaps.linesBefore(index);
  }

  /**
   * The run line index of the first line at or after {@code epochMillis}: the number of the
   * timeline's lines before it, gaps included. Plus the run's first index, it is a sequence id:
   * a window's lines are the ids {@code [indexBefore(start), indexBefore(end))}.
   */
  public long indexBefore(long epochMillis) {
    return timeline.countBefore(epochMillis, runStartMillis);
  }

  /** Lines with timestamps in {@code [fromMillis, toMillis)}; 0 when the range is empty. */
  public long count(long fromMillis, long toMillis) {
    if (toMillis <= fromMillis) {
      return 0;
    }
    return countBefore(toMillis) - countBefore(fromMillis);
  }

  /**
   * Counts of the windows {@code [from + kW, from + (k+1)W)} that start before {@code to}, the
   * last one cut off at {@code to}, so they add up to {@code count(from, to)}.
   *
   * @throws IllegalArgumentException if {@code windowMillis <= 0}, {@code to < from}, or there
   *     would be more than {@link #MAX_WINDOWS} windows
   */
  public long[] perWindow(long fromMillis, long toMillis, long windowMillis) {
    List<WindowCount> rows = windows(fromMillis, toMillis, windowMillis).windows();
    long[] counts = new long[rows.size()];
    for (int k = 0; k < counts.length; k++) {
      counts[k] = rows.get(k).count();
    }
    return counts;
  }

  /** As {@link #perWindow}, as rows with their bounds and the total. */
  public WindowCounts windows(long fromMillis, long toMillis, long windowMillis) {
    int n = windowCount(fromMillis, toMillis, windowMillis);
    List<WindowCount> rows = new ArrayList<>(n);
    long start = fromMillis;
    long before = countBefore(start);
    long total = 0;
    for (int k = 0; k < n; k++) {
      long end = k == n - 1 ? toMillis : start + windowMillis;
      long beforeEnd = countBefore(end);
      rows.add(new WindowCount(start, end, beforeEnd - before));
      total += beforeEnd - before;
      start = end;
      before = beforeEnd;
    }
    return new WindowCounts(rows, total);
  }

  /**
   * Counts of whole windows of {@code windowMillis} aligned to midnight in {@code zone} (a window
   * starts at the local midnight of the day {@code fromMillis} falls in, and every {@code
   * windowMillis} from there), covering {@code [fromMillis, toMillis)}: the first window may start
   * before {@code fromMillis} and the last end after {@code toMillis}. Windows are fixed-length,
   * so across a daylight-saving change they stay on the first day's grid.
   */
  public WindowCounts aligned(long fromMillis, long toMillis, long windowMillis, ZoneId zone) {
    long midnight =
        Instant.ofEpochMilli(fromMillis).atZone(zone).toLocalDate().atStartOfDay(zone)
            .toInstant().toEpochMilli();
    return alignedTo(midnight, fromMillis, toMillis, windowMillis);
  }

  /**
   * Counts of whole windows of {@code windowMillis} aligned to the epoch (window starts are
   * multiples of {@code windowMillis}), covering {@code [fromMillis, toMillis)}.
   */
  public WindowCounts alignedToEpoch(long fromMillis, long toMillis, long windowMillis) {
    return alignedTo(0, fromMillis, toMillis, windowMillis);
  }

  private WindowCounts alignedTo(long anchor, long fromMillis, long toMillis, long windowMillis) {
    checkWindow(fromMillis, toMillis, windowMillis);
    long start = anchor + Math.floorDiv(fromMillis - anchor, windowMillis) * windowMillis;
    long end = anchor + ceilDiv(toMillis - anchor, windowMillis) * windowMillis;
    if (toMillis == fromMillis) {
      end = start;
    }
    return windows(start, end, windowMillis);
  }

  private static int windowCount(long fromMillis, long toMillis, long windowMillis) {
    checkWindow(fromMillis, toMillis, windowMillis);
    long n = ceilDiv(toMillis - fromMillis, windowMillis);
    if (n > MAX_WINDOWS) {
      throw new IllegalArgumentException(
          "[" + fromMillis + ", " + toMillis + ") in windows of " + windowMillis + " ms makes " + n
              + " windows, more than the " + MAX_WINDOWS + " allowed.");
    }
    return (int) n;
  }

  private static void checkWindow(long fromMillis, long toMillis, long windowMillis) {
    if (windowMillis <= 0) {
      throw new IllegalArgumentException(
          "A window must be at least 1 ms long, but was " + windowMillis + " ms.");
    }
    if (toMillis < fromMillis) {
      throw new IllegalArgumentException(
          "A range must not end before it starts, but was [" + fromMillis + ", " + toMillis + ").");
    }
  }

  private static long ceilDiv(long a, long b) {
    return Math.floorDiv(a, b) + (Math.floorMod(a, b) == 0 ? 0 : 1);
  }
}
