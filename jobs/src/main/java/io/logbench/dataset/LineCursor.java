package io.logbench.dataset;

/**
 * Makes a dataset's lines one after another from some index. Not thread-safe: one per reader.
 */
public interface LineCursor {

  /** Index of the line the next call to {@link #next} appends. */
  long position();

  /** Moves forward to {@code index} (which must not be before {@link #position()}). */
  void skipTo(long index);

  /**
   * Appends the line at {@link #position()} to {@code batch} and moves on by one line: raw, or
   * escaped for a JSON string when the batch holds its lines so (only a cursor of a dataset that
   * {@link Dataset#makesJsonEscapedLines} is given such a batch).
   */
  void next(LineBatch batch);

  /** Appends the next {@code lines} lines to {@code batch}: {@link #next} so many times. */
  default void next(LineBatch batch, int lines) {
    for (int k = 0; k < lines; k++) {
      next(batch);
    }
  }
}
