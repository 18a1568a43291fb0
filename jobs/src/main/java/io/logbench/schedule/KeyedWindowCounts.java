package io.logbench.schedule;

import java.util.List;

/**
 * The exact number of a run's lines per value of one field in each window: {@code counts[w][v]}
 * lines of window {@code w} have value {@code values.get(v)} in field {@code key}. Row {@code w}
 * adds up to {@code windows.get(w).count()}.
 *
 * @param key the field counted, such as {@code status}
 * @param values the values of the field, the columns of {@code counts}
 * @param windows the windows, consecutive, with their line counts
 * @param counts one row per window, one column per value
 */
public record KeyedWindowCounts(
    String key, List<String> values, List<WindowCount> windows, long[][] counts) {

  public KeyedWindowCounts {
    values = List.copyOf(values);
    windows = List.copyOf(windows);
    if (counts.length != windows.size()) {
      throw new IllegalArgumentException(
          windows.size() + " windows need as many rows of counts, not " + counts.length + ".");
    }
  }

  /** Lines of window {@code w} whose field has value {@code v}. */
  public long count(int w, int v) {
    return counts[w][v];
  }

  /** Lines of all windows whose field has value {@code v}. */
  public long total(int v) {
    long n = 0;
    for (long[] row : counts) {
      n += row[v];
    }
    return n;
  }
}
