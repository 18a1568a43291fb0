package io.logbench.sink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.JsonEscaping;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Escaping and number writing of request bodies built from bytes. */
class JsonBytesTest {

  private static String escaped(String s) {
    byte[] raw = s.getBytes(StandardCharsets.UTF_8);
    return new String(new JsonBytes(4).appendEscaped(raw, 0, raw.length).toByteArray(), StandardCharsets.UTF_8);
  }

  /** The escaping itself is {@code JsonEscapingTest}'s; here, that the buffer writes it whole. */
  @Test
  void appendEscapedWritesWhatJsonEscapingWritesAfterTheBytesBeforeGrowingTheBuffer() {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x80; c++) {
      all.append(c);
    }
    all.append("é✓\uD83D\uDE00");
    byte[] raw = all.toString().getBytes(StandardCharsets.UTF_8);
    byte[] body = new JsonBytes(4).append((byte) '[').appendEscaped(raw, 0, raw.length).append((byte) ']')
        .toByteArray();
    byte[] expected = JsonEscaping.escape(raw);
    assertThat(body).hasSize(expected.length + 2);
    assertThat(java.util.Arrays.copyOfRange(body, 1, body.length - 1)).isEqualTo(expected);
    assertThat(escaped("a\"b\\c\n\u001f")).isEqualTo("a\\\"b\\\\c\\n\\u001f");
  }

  @Test
  void numbersAndPaddedFractions() {
    JsonBytes b = new JsonBytes(1);
    b.appendLong(0).append((byte) ' ').appendLong(-42).append((byte) ' ').appendLong(Long.MAX_VALUE)
        .append((byte) ' ').appendPadded(43, 9);
    assertThat(new String(b.toByteArray(), StandardCharsets.US_ASCII))
        .isEqualTo("0 -42 9223372036854775807 000000043");
  }

  @Test
  void aReusedBufferGrowsAndClearsWithoutLosingBytes() {
    JsonBytes b = new JsonBytes(1);
    byte[] src = "xxhello".getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < 100; i++) {
      b.appendAscii("[").append(src, 2, 5).appendAscii("]");
    }
    assertThat(b.size()).isEqualTo(700);
    assertThat(new String(b.array(), 0, 7, StandardCharsets.US_ASCII)).isEqualTo("[hello]");
    b.clear();
    assertThat(b.size()).isZero();
    b.appendAscii("{}");
    assertThat(b.toByteArray()).isEqualTo("{}".getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void timestampsAsRfc3339AndEpochSecondsWithNineOrTruncatedSixDigits() {
    TimestampWriter w = new TimestampWriter();
    JsonBytes b = new JsonBytes(8);
    long t = Instant.parse("2021-05-31T23:59:59.999999999Z").getEpochSecond() * 1_000_000_000L + 999_999_999L;
    w.rfc3339(b, t);
    b.append((byte) ' ');
    w.rfc3339(b, t + 1);
    b.append((byte) ' ');
    TimestampWriter.epochSeconds(b, t);
    b.append((byte) ' ');
    TimestampWriter.epochSecondsMicros(b, t);
    b.append((byte) ' ');
    TimestampWriter.epochSecondsMicros(b, t + 1);
    b.append((byte) ' ');
    TimestampWriter.epochSecondsMicros(b, t - 999_999_000L);
    assertThat(new String(b.toByteArray(), StandardCharsets.US_ASCII))
        .isEqualTo("2021-05-31T23:59:59.999999999Z 2021-06-01T00:00:00.000000000Z 1622505599.999999999"
            + " 1622505599.999999 1622505600.000000 1622505599.000000");
  }

  @Test
  void longsWrittenNineDigitsAtATimeAreLongToString() {
    SplittableRandom random = new SplittableRandom(7);
    long[] edges = {0, 9, 10, 999_999_999L, 1_000_000_000L, 1_000_000_001L, Integer.MAX_VALUE,
        Integer.MAX_VALUE + 1L, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L, Long.MAX_VALUE,
        -1, -999_999_999L, -1_000_000_000L, Long.MIN_VALUE + 1, Long.MIN_VALUE};
    JsonBytes b = new JsonBytes(1);
    StringBuilder expected = new StringBuilder();
    for (long v : edges) {
      b.appendLong(v).append((byte) ' ');
      expected.append(v).append(' ');
    }
    for (int i = 0; i < 100_000; i++) {
      // every length of number, both signs
      long v = random.nextLong() >> random.nextInt(64);
      b.appendLong(v).append((byte) ' ');
      expected.append(v).append(' ');
    }
    assertThat(new String(b.toByteArray(), StandardCharsets.US_ASCII)).isEqualTo(expected.toString());
  }

  @Test
  void paddedDigitsOfIntsAndLongs() {
    JsonBytes b = new JsonBytes(1);
    b.appendPadded(0, 3).append((byte) ' ').appendPadded(Integer.MAX_VALUE, 12).append((byte) ' ')
        .appendPadded(Integer.MAX_VALUE + 1L, 12).append((byte) ' ').appendPadded(123_456_789_012L, 12);
    assertThat(new String(b.toByteArray(), StandardCharsets.US_ASCII))
        .isEqualTo("000 002147483647 002147483648 123456789012");
  }

  @Test
  void divisionByTenByAMultiplicationIsExactForEveryNonNegativeInt() {
    // every int below 10^7, then random ones up to Integer.MAX_VALUE, and the largest
    long wrong = -1;
    for (int v = 0; v < 10_000_000 && wrong < 0; v++) {
      wrong = JsonBytes.div10(v) == v / 10 ? -1 : v;
    }
    SplittableRandom random = new SplittableRandom(11);
    for (int i = 0; i < 10_000_000 && wrong < 0; i++) {
      int v = random.nextInt(Integer.MAX_VALUE);
      wrong = JsonBytes.div10(v) == v / 10 ? -1 : v;
    }
    assertThat(wrong).as("the first int divided wrongly").isEqualTo(-1);
    assertThat(JsonBytes.div10(Integer.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE / 10);
  }

  @Test
  void rfc3339MovingBackAndForthBetweenSecondsIsWhatJavaTimeWrites() {
    DateTimeFormatter iso = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);
    long base = Instant.parse("2021-05-31T23:59:58Z").getEpochSecond() * 1_000_000_000L;
    long[] times = {base, base + 999_999_999L, base + 1_000_000_000L, base + 999_999_999L, base + 2_999_999_999L,
        base - 1, base, 0, 999_999_999L, -1, -1_000_000_000L, -1_000_000_001L, base + 1_500_000_000L};
    TimestampWriter w = new TimestampWriter();
    for (long t : times) {
      JsonBytes b = new JsonBytes(8);
      w.rfc3339(b, t);
      Instant at = Instant.ofEpochSecond(Math.floorDiv(t, 1_000_000_000L), Math.floorMod(t, 1_000_000_000L));
      assertThat(new String(b.toByteArray(), StandardCharsets.US_ASCII)).as("%d", t).isEqualTo(iso.format(at));
    }
  }
}
