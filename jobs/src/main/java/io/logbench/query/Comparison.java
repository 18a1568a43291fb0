package io.logbench.query;

import io.logbench.schedule.KeyedWindowCounts;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Compares a backend's answer with the exact answer, cell by cell: every bucket and every value,
 * the dataset's and any other the backend answered with (whose exact count is 0).
 */
public final class Comparison {

  /** The wrong cells of one answer: how many, and the first of them. */
  public record Result(long cells, long wrongCells, List<Mismatch> first) {}

  private Comparison() {}

  /**
   * The cells of {@code answer} that differ from {@code exact}.
   *
   * @param exact the exact counts, one window per bucket of the answer's query
   * @param keep how many of the wrong cells to keep (all are counted)
   * @throws IllegalArgumentException when the exact answer's windows are not the query's buckets
   */
  public static Result compare(String backend, String search, KeyedWindowCounts exact, KeyedAnswer answer,
      int keep) {
    KeyedQuery q = answer.query();
    if (exact.windows().size() != q.buckets()
        || (q.buckets() > 0 && exact.windows().get(0).startMillis() != q.fromMillis())) {
      throw new IllegalArgumentException("The exact answer has " + exact.windows().size()
          + " windows, not the query's " + q.buckets() + " buckets from " + q.fromMillis() + ".");
    }
    Set<String> values = new LinkedHashSet<>(exact.values());
    values.addAll(answer.values());
    int[] column = new int[values.size()];
    List<String> ordered = new ArrayList<>(values);
    for (int v = 0; v < column.length; v++) {
      column[v] = exact.values().indexOf(ordered.get(v));
    }
    long wrong = 0;
    List<Mismatch> first = new ArrayList<>();
    for (int k = 0; k < q.buckets(); k++) {
      for (int v = 0; v < column.length; v++) {
        long expected = column[v] < 0 ? 0 : exact.count(k, column[v]);
        long got = answer.count(k, ordered.get(v));
        if (expected != got) {
          wrong++;
          if (first.size() < keep) {
            first.add(new Mismatch(backend, search, q.bucketStart(k), q.bucketMillis(), q.key(), ordered.get(v),
                expected, got));
          }
        }
      }
    }
    return new Result((long) q.buckets() * column.length, wrong, first);
  }
}
