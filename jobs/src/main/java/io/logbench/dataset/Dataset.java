package io.logbench.dataset;

import java.io.Serializable;
import java.util.List;

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

  /** The zone in which lines print their own time (the offset they carry); UTC by default. */
  default java.time.ZoneId zone() {
    return java.time.ZoneOffset.UTC;
  }

  /**
   * Whether every line carries its sequence id as a JSON {@code "seq"} field, so a reader can
   * list ids from the line text instead of from its nanosecond timestamp.
   */
  default boolean linesCarrySeq() {
    return false;
  }

  /**
   * Whether its cursors make lines already escaped for a JSON string into a batch that holds
   * them so ({@link LineBatch#jsonEscaped()}), as cheaply as raw ones: a source for a backend that
   * writes lines inside JSON strings then asks for them so. False by default: the cursors make raw
   * lines and are never given such a batch.
   */
  default boolean makesJsonEscapedLines() {
    return false;
  }

  /** The stream labels this dataset's lines are spread over. */
  StreamCatalog streams();

  /** A new cursor positioned at {@code fromIndex}; cursors are not thread-safe. */
  LineCursor cursor(long fromIndex);

  /**
   * A small serializable hint from which {@link #cursor(long, Serializable)} starts at {@code
   * index} without replaying earlier lines (for example a random generator's state), computed
   * where the dataset has already done that work and shipped with a split; null when {@link
   * #cursor(long)} is cheap anyway.
   */
  default Serializable resumeToken(long index) {
    return null;
  }

  /** A cursor at {@code fromIndex}, started from a {@link #resumeToken} made for that index. */
  default LineCursor cursor(long fromIndex, Serializable resumeToken) {
    return cursor(fromIndex);
  }

  /**
   * The fields this dataset counts lines by exactly ({@link #keyedCounts}), such as {@code
   * status} and {@code path}; empty when it counts by none.
   */
  default List<String> countKeys() {
    return List.of();
  }

  /**
   * Exact counts of lines per value of {@code key}, one of {@link #countKeys()}.
   *
   * @throws IllegalArgumentException if the dataset does not count by {@code key}
   */
  default KeyedCounts keyedCounts(String key) {
    throw unknownCountKey(key);
  }

  /** The error for a key not in {@link #countKeys()}, naming the ones there are. */
  default IllegalArgumentException unknownCountKey(String key) {
    List<String> keys = countKeys();
    return new IllegalArgumentException(
        "Dataset " + name() + " cannot count lines by '" + key + "'; "
            + (keys.isEmpty()
                ? "it counts by no field."
                : "it counts by " + String.join(" or ", keys) + "."));
  }

  /** Total bytes of lines [from, to) (no separators), by making them unless a dataset knows better. */
  default long byteSize(long from, long to) {
    LineCursor cursor = cursor(from);
    LineBatch batch = new LineBatch(1024, 256 * 1024);
    long bytes = 0;
    for (long i = from; i < to; ) {
      batch.reset(0, i);
      int n = (int) Math.min(1024, to - i);
      cursor.next(batch, n);
      bytes += batch.byteSize();
      i += n;
    }
    return bytes;
  }
}
