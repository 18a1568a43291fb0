package io.logbench.query;

import java.util.List;

/**
 * One search of the case study, in no backend's language: the lines of the run in {@code
 * [fromMillis, toMillis)}, counted per bucket {@code [fromMillis + k * bucketMillis, fromMillis +
 * (k + 1) * bucketMillis)} and per value of the field {@code key} (a stream label, such as {@code
 * status}). A {@link KeyedSearch} says it in its backend's language and reads the answer back.
 *
 * @param key the field counted by, a stream label of the dataset
 * @param values the values the field takes in the dataset (the exact answer's columns); a search
 *     may meet others, which are then wrong cells
 * @param fromMillis start of the first bucket
 * @param toMillis end of the last bucket, a whole number of buckets after {@code fromMillis}
 * @param bucketMillis the bucket size
 */
public record KeyedQuery(String key, List<String> values, long fromMillis, long toMillis, long bucketMillis) {

  /** The most buckets one query may have. */
  public static final int MAX_BUCKETS = 1_000_000;

  public KeyedQuery {
    values = List.copyOf(values);
    if (bucketMillis <= 0 || toMillis < fromMillis || (toMillis - fromMillis) % bucketMillis != 0) {
      throw new IllegalArgumentException("A keyed query needs buckets of a positive size tiling [from, to), not ["
          + fromMillis + ", " + toMillis + ") in buckets of " + bucketMillis + " ms.");
    }
    if ((toMillis - fromMillis) / bucketMillis > MAX_BUCKETS) {
      throw new IllegalArgumentException("A keyed query of " + (toMillis - fromMillis) / bucketMillis
          + " buckets is more than the " + MAX_BUCKETS + " allowed.");
    }
  }

  /** Number of buckets. */
  public int buckets() {
    return (int) ((toMillis - fromMillis) / bucketMillis);
  }

  /** Start of bucket {@code k}. */
  public long bucketStart(int k) {
    return fromMillis + k * bucketMillis;
  }

  /** The bucket holding {@code epochMillis}, or -1 when it is outside {@code [from, to)}. */
  public int bucketOf(long epochMillis) {
    if (epochMillis < fromMillis || epochMillis >= toMillis) {
      return -1;
    }
    return (int) ((epochMillis - fromMillis) / bucketMillis);
  }

  /**
   * The bucket that starts at {@code epochMillis}, or -1 when no bucket starts there (a backend
   * answered a bucket that was not asked for).
   */
  public int bucketStartingAt(long epochMillis) {
    int k = bucketOf(epochMillis);
    return k >= 0 && bucketStart(k) == epochMillis ? k : -1;
  }

  /** The same query over buckets {@code [first, first + n)} only. */
  public KeyedQuery slice(int first, int n) {
    return new KeyedQuery(key, values, bucketStart(first), bucketStart(first + n), bucketMillis);
  }

  /** The same query for {@code subset} of the values (a backend that splits by series). */
  public KeyedQuery withValues(List<String> subset) {
    return new KeyedQuery(key, subset, fromMillis, toMillis, bucketMillis);
  }
}
