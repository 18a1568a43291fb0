package io.logbench.dataset;

import java.io.Serializable;

/**
 * A synthetic log dataset: a pure function of (seed, line index).
 *
 * <p>Line {@code i} has a timestamp (the dataset's own time, in epoch milliseconds, non-decreasing
 * in {@code i}), a stream and raw bytes. Any line can be made without making the ones before it
 * in order (a {@link LineCursor} may internally skip ahead), and the number of lines before any
 * instant is arithmetic, never a scan, so the expected count of any window is exact.
 */
public interface Dataset extends Serializable {

  /** Short name, such as {@code nginx-month}. */
  String name();

  /** Number of lines in the dataset. */
  long size();

  /** The dataset's own time of line {@code index}, epoch milliseconds; non-decreasing. */
  long timestampMillis(long index);

  /** Number of lines whose own time is strictly before {@code epochMillis}. */
  long countBefore(long epochMillis);

  /** Own time of the first line, epoch milliseconds. */
  default long firstMillis() {
    return timestampMillis(0);
  }

  /** Exclusive end of the dataset's span, epoch milliseconds (after its last line). */
  long endMillis();

  /** The stream labels this dataset's lines are spread over. */
  StreamCatalog streams();

  /** A new cursor positioned at {@code fromIndex}; cursors are not thread-safe. */
  LineCursor cursor(long fromIndex);
}
