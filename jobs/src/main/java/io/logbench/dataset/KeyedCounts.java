package io.logbench.dataset;

import java.util.List;

/**
 * The exact number of a dataset's lines per value of one field (nginx-month's {@code status},
 * app-json's {@code level}), over consecutive ranges of line indexes: the answer a backend must
 * give to "count lines by status per window". Computed from the draws that decide the field,
 * never by making lines, so a month costs what drawing it costs.
 *
 * <p>Ranges are given by line index, not by time: a run's timeline (the schedule package's) turns
 * window bounds into line indexes ({@code countBefore} of
 * each bound, exact in every timestamp mode because timestamps are non-decreasing in the index),
 * so one implementation per dataset serves every schedule and timestamp mode.
 */
public interface KeyedCounts {

  /** The field counted, such as {@code status}. */
  String key();

  /** The values the field takes, in the order of {@link #count}'s columns. */
  List<String> values();

  /**
   * Lines per value in each of the ranges {@code [bounds[w], bounds[w + 1])}: {@code
   * counts[w][v]} is the number of lines of range {@code w} whose field is {@code values().get(v)}.
   * Row {@code w} adds up to {@code bounds[w + 1] - bounds[w]}.
   *
   * @param bounds non-decreasing line indexes within the dataset, at least one
   * @param parallelism threads to count on (1 counts on the caller's thread)
   * @throws IllegalArgumentException if the bounds are empty, decreasing or outside the dataset,
   *     or the answer would hold more than {@link RangeCounts#MAX_CELLS} counts
   */
  long[][] count(long[] bounds, int parallelism);
}
