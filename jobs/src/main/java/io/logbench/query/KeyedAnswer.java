package io.logbench.query;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A backend's answer to a {@link KeyedQuery}: lines per bucket and value, as the backend counted
 * them. Values the query did not list are kept too (a line with a value the dataset never makes
 * is a wrong cell, not something to drop); a cell never added is 0.
 */
public final class KeyedAnswer {

  private final KeyedQuery query;
  private final Map<String, long[]> byValue = new LinkedHashMap<>();

  public KeyedAnswer(KeyedQuery query) {
    this.query = query;
    for (String v : query.values()) {
      byValue.put(v, new long[query.buckets()]);
    }
  }

  public KeyedQuery query() {
    return query;
  }

  /** Adds {@code count} lines of value {@code value} to bucket {@code bucket}. */
  public void add(int bucket, String value, long count) {
    if (bucket < 0 || bucket >= query.buckets()) {
      throw new IndexOutOfBoundsException("Bucket " + bucket + " is not one of the " + query.buckets() + " asked for.");
    }
    byValue.computeIfAbsent(value, v -> new long[query.buckets()])[bucket] += count;
  }

  /** Adds another answer's counts, bucket by bucket from {@code firstBucket} (a piece of a split query). */
  public void addAll(KeyedAnswer piece, int firstBucket) {
    for (Map.Entry<String, long[]> e : piece.byValue.entrySet()) {
      long[] counts = e.getValue();
      for (int k = 0; k < counts.length; k++) {
        if (counts[k] != 0) {
          add(firstBucket + k, e.getKey(), counts[k]);
        }
      }
    }
  }

  /** Lines of value {@code value} in bucket {@code bucket}. */
  public long count(int bucket, String value) {
    long[] counts = byValue.get(value);
    return counts == null ? 0 : counts[bucket];
  }

  /** Every value of the answer: the query's, then any other the backend answered with. */
  public List<String> values() {
    return new ArrayList<>(byValue.keySet());
  }

  /** All lines of the answer. */
  public long total() {
    long n = 0;
    for (long[] counts : byValue.values()) {
      for (long c : counts) {
        n += c;
      }
    }
    return n;
  }
}
