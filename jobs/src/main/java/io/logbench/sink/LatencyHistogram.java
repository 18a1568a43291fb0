package io.logbench.sink;

import java.io.Serializable;
import java.util.Arrays;

/**
 * A small mergeable log-linear histogram of non-negative values (latencies in microseconds), in
 * the manner of HdrHistogram with about two significant digits: values below 128 are exact;
 * above, each power of two is split into 64 buckets, so a recorded value is known within 1/64
 * (1.6%) of itself. Values from 0 to 2^40 (about 12 days in microseconds) are kept; larger ones
 * are counted in the last bucket, and the exact maximum is kept apart.
 *
 * <p>Not thread-safe: one writer, or external locking.
 */
public final class LatencyHistogram implements Serializable {

  private static final long serialVersionUID = 1L;

  private static final int SUB_BITS = 6;
  private static final int SUB_COUNT = 1 << SUB_BITS; // 64 buckets per power of two
  private static final int LINEAR = 2 * SUB_COUNT; // values 0..127 are exact
  /** Largest value kept in its own bucket; larger values go to the last bucket. */
  public static final long MAX_TRACKABLE = (1L << 40) - 1;

  private static final int BUCKETS = index(MAX_TRACKABLE) + 1;

  private final long[] counts = new long[BUCKETS];
  private long count;
  private long sum;
  private long min = Long.MAX_VALUE;
  private long max = Long.MIN_VALUE;

  /** Records one value; negative values count as 0. */
  public void record(long value) {
    long v = Math.max(0, value);
    counts[index(Math.min(v, MAX_TRACKABLE))]++;
    count++;
    sum += v;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }

  /** Adds every value of {@code other} to this histogram. */
  public void merge(LatencyHistogram other) {
    for (int i = 0; i < BUCKETS; i++) {
      counts[i] += other.counts[i];
    }
    count += other.count;
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
    return count;
  }

  /** Smallest value recorded, or 0 when empty. */
  public long min() {
    return count == 0 ? 0 : min;
  }

  /** Largest value recorded (exact), or 0 when empty. */
  public long max() {
    return count == 0 ? 0 : max;
  }

  public double mean() {
    return count == 0 ? 0 : (double) sum / count;
  }

  /**
   * The value at {@code percentile} (0 to 100) by nearest rank: the smallest recorded value with
   * at least {@code percentile}% of values at or below it, given as the top of its bucket (so
   * never below the exact answer and at most 1/64 of it above), capped at the exact maximum.
   * Returns 0 when empty.
   */
  public long percentile(double percentile) {
    if (percentile < 0 || percentile > 100 || Double.isNaN(percentile)) {
      throw new IllegalArgumentException("A percentile must be from 0 to 100, not " + percentile + ".");
    }
    if (count == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * count));
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank) {
        if (i == BUCKETS - 1) {
          return max; // the overflow bucket
        }
        return Math.max(min, Math.min(max, highestInBucket(i)));
      }
    }
    return max;
  }

  /** Empties the histogram. */
  public void reset() {
    Arrays.fill(counts, 0);
    count = 0;
    sum = 0;
    min = Long.MAX_VALUE;
    max = Long.MIN_VALUE;
  }

  static int index(long v) {
    if (v < LINEAR) {
      return (int) v;
    }
    int shift = 63 - Long.numberOfLeadingZeros(v) - SUB_BITS; // v >> shift is in [64, 128)
    return LINEAR + (shift - 1) * SUB_COUNT + (int) ((v >> shift) - SUB_COUNT);
  }

  static long highestInBucket(int index) {
    if (index < LINEAR) {
      return index;
    }
    int shift = (index - LINEAR) / SUB_COUNT + 1;
    long sub = (index - LINEAR) % SUB_COUNT + SUB_COUNT;
    return ((sub + 1) << shift) - 1;
  }

  @Override
  public String toString() {
    return "LatencyHistogram{count=" + count + ", p50=" + percentile(50) + ", p99=" + percentile(99)
        + ", max=" + max() + "}";
  }
}
