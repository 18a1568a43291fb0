package io.logbench.sink;

import java.io.Serializable;
import org.HdrHistogram.Histogram;

/**
 * A mergeable histogram of non-negative values (latencies in microseconds) on HdrHistogram, with
 * two significant digits: values below 256 are exact; above, a recorded value is known within
 * 1/128 (0.8%) of itself. Values from 0 to 2^40 (about 12 days in microseconds) are kept in their
 * buckets; larger ones are counted in the top one. The exact minimum, maximum and sum are kept
 * apart, so {@link #max}, {@link #min} and {@link #mean} are exact and no percentile is reported
 * above the maximum. The buckets grow with the largest value seen (HdrHistogram's auto-resize), so
 * a histogram of millisecond latencies stays a few kilobytes.
 *
 * <p>Not thread-safe: one writer, or external locking.
 */
public final class LatencyHistogram implements Serializable {

  private static final long serialVersionUID = 2L;

  /** Largest value kept in its own bucket; larger values go to the top bucket. */
  public static final long MAX_TRACKABLE = (1L << 40) - 1;

  private static final int SIGNIFICANT_DIGITS = 2;

  private final Histogram buckets = new Histogram(SIGNIFICANT_DIGITS);
  private long sum;
  private long min = Long.MAX_VALUE;
  private long max = Long.MIN_VALUE;

  /** Records one value; negative values count as 0. */
  public void record(long value) {
    long v = Math.max(0, value);
    buckets.recordValue(Math.min(v, MAX_TRACKABLE));
    sum += v;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }

  /** Adds every value of {@code other} to this histogram. */
  public void merge(LatencyHistogram other) {
    buckets.add(other.buckets);
    sum += other.sum;
    min = Math.min(min, other.min);
    max = Math.max(max, other.max);
  }

  /** A copy of this histogram. */
  public LatencyHistogram copy() {
    LatencyHistogram c = new LatencyHistogram();
    c.merge(this);
    return c;
  }

  public long count() {
    return buckets.getTotalCount();
  }

  /**
   * Values recorded at or below {@code value}, at the buckets' precision (two significant
   * digits): a histogram's cumulative bucket for an upper bound.
   */
  public long countAtOrBelow(long value) {
    if (value < 0 || count() == 0) {
      return 0;
    }
    return buckets.getCountBetweenValues(0, Math.min(value, MAX_TRACKABLE));
  }

  /** The sum of the values recorded (negative ones as 0), exact. */
  public long sum() {
    return sum;
  }

  /** Smallest value recorded, or 0 when empty. */
  public long min() {
    return count() == 0 ? 0 : min;
  }

  /** Largest value recorded (exact), or 0 when empty. */
  public long max() {
    return count() == 0 ? 0 : max;
  }

  public double mean() {
    long n = count();
    return n == 0 ? 0 : (double) sum / n;
  }

  /**
   * The value at {@code percentile} (0 to 100) by nearest rank: the smallest recorded value with
   * at least {@code percentile}% of values at or below it, given as the top of its bucket (so
   * never below the exact answer and at most 1/128 of it above), within the exact minimum and
   * maximum. Returns 0 when empty.
   */
  public long percentile(double percentile) {
    if (percentile < 0 || percentile > 100 || Double.isNaN(percentile)) {
      throw new IllegalArgumentException("A percentile must be from 0 to 100, not " + percentile + ".");
    }
    long n = count();
    if (n == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * n));
    // HdrHistogram turns a percentile back into a count by rounding; a quarter below the rank
    // lands on the rank itself whether it rounds or takes the ceiling
    long v = buckets.getValueAtPercentile((rank - 0.25) / n * 100.0);
    if (buckets.lowestEquivalentValue(v) >= buckets.lowestEquivalentValue(MAX_TRACKABLE)) {
      return max; // the top bucket, where values past MAX_TRACKABLE are counted
    }
    return Math.max(min, Math.min(max, v));
  }

  /** Empties the histogram. */
  public void reset() {
    buckets.reset();
    sum = 0;
    min = Long.MAX_VALUE;
    max = Long.MIN_VALUE;
  }

  @Override
  public String toString() {
    return "LatencyHistogram{count=" + count() + ", p50=" + percentile(50) + ", p99=" + percentile(99)
        + ", max=" + max() + "}";
  }
}
