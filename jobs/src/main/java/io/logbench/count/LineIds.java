package io.logbench.count;

import io.logbench.dataset.LineBatch;

/**
 * The sequence id of a line read back from a backend: the {@code "seq"} field when the line
 * carries one (app-json lines), else what its nanosecond timestamp tells.
 *
 * <p>logbench stamps line {@code seq} at {@code ms * 1e6 + 1 + seq mod 999,999} ({@link
 * LineBatch#distinctNanos}), so the offset within the millisecond gives {@code seq mod 999,999}.
 * That is the sequence id itself for the first 999,999 lines of a run, and otherwise identifies the
 * line within its millisecond (lines of one millisecond are consecutive and fewer than 999,999):
 * the verifier maps it back with the dataset, which knows the first id of each millisecond.
 */
public final class LineIds {

  /** The modulus of the nanosecond offset, as in {@link LineBatch#distinctNanos}. */
  public static final long MODULUS = 999_999L;

  private LineIds() {}

  /** The {@code "seq"} number of a JSON line, or -1 when it has none. */
  public static long seqField(String line) {
    int at = line.indexOf("\"seq\"");
    if (at < 0) {
      return -1;
    }
    int i = at + 5;
    while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == ':')) {
      i++;
    }
    int start = i;
    while (i < line.length() && Character.isDigit(line.charAt(i)) && i - start < 18) {
      i++;
    }
    return i == start ? -1 : Long.parseLong(line.substring(start, i));
  }

  /** {@code seq mod 999,999} from a logbench nanosecond timestamp, or -1 on a whole millisecond. */
  public static long fromNanos(long nanos) {
    long offset = Math.floorMod(nanos, 1_000_000L);
    return offset == 0 ? -1 : offset - 1;
  }

  /** The id of a line: its {@code "seq"} field, else {@link #fromNanos}. */
  public static long of(String line, long nanos) {
    long seq = seqField(line);
    return seq >= 0 ? seq : fromNanos(nanos);
  }
}
