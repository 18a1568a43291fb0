package io.logbench.sink.internal;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Writes epoch-nanosecond timestamps as RFC 3339 UTC text with nine fraction digits, or as epoch
 * seconds with nine or six (truncated) fraction digits. The date part of the last second is cached, because lines of
 * a batch share their second; not thread-safe (one per sender, used from one thread).
 */
public final class TimestampWriter {

  /** The first nanosecond of the cached second (none yet while {@link #cachedPrefix} is null). */
  private long cachedSecondNanos;
  private byte[] cachedPrefix;

  /** {@code 2021-05-01T03:00:00.123456789Z} */
  public void rfc3339(JsonBytes out, long epochNanos) {
    // a line of the cached second needs no 64-bit division (C1 calls into the VM for one)
    long fraction = epochNanos - cachedSecondNanos;
    if (cachedPrefix == null || fraction < 0 || fraction >= 1_000_000_000L) {
      long second = Math.floorDiv(epochNanos, 1_000_000_000L);
      LocalDateTime t = LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC);
      cachedPrefix =
          String.format(
                  "%04d-%02d-%02dT%02d:%02d:%02d.",
                  t.getYear(), t.getMonthValue(), t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond())
              .getBytes(StandardCharsets.US_ASCII);
      fraction = Math.floorMod(epochNanos, 1_000_000_000L);
      cachedSecondNanos = epochNanos - fraction;
    }
    out.append(cachedPrefix).appendPadded((int) fraction, 9).append((byte) 'Z');
  }

  /**
   * {@code 1619838000.123456} (epoch seconds with six fraction digits; non-negative times only):
   * the nanoseconds below a microsecond are cut, never rounded, so a time keeps its second and
   * its millisecond (a rounded {@code .999999999} would become the next second).
   */
  public static void epochSecondsMicros(JsonBytes out, long epochNanos) {
    out.appendLong(Math.floorDiv(epochNanos, 1_000_000_000L))
        .append((byte) '.')
        .appendPadded(Math.floorMod(epochNanos, 1_000_000_000L) / 1_000, 6);
  }

  /** {@code 1619838000.123456789} (epoch seconds; non-negative times only). */
  public static void epochSeconds(JsonBytes out, long epochNanos) {
    out.appendLong(Math.floorDiv(epochNanos, 1_000_000_000L))
        .append((byte) '.')
        .appendPadded(Math.floorMod(epochNanos, 1_000_000_000L), 9);
  }
}
