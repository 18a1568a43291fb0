package io.logbench.sink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Escaping and number writing of request bodies built from bytes. */
class JsonBytesTest {

  private static String escaped(String s) {
    byte[] raw = s.getBytes(StandardCharsets.UTF_8);
    return new String(new JsonBytes(4).appendEscaped(raw, 0, raw.length).toByteArray(), StandardCharsets.UTF_8);
  }

  @Test
  void everyCharacterJsonNeedsEscapedIsEscapedAndTheRestCopied() throws Exception {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x80; c++) {
      all.append(c);
    }
    all.append("é✓\uD83D\uDE00");
    String json = "\"" + escaped(all.toString()) + "\"";
    assertThat(new ObjectMapper().readValue(json, String.class)).isEqualTo(all.toString());
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
}
