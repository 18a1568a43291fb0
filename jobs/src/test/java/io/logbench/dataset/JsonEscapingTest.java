package io.logbench.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** JSON string escaping of line bytes and its inverse, which a batch of escaped lines reads back. */
class JsonEscapingTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void everyAsciiCharacterAndUtf8EscapesToWhatAJsonParserReadsBackAndUnescapesToTheRawBytes() throws Exception {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x80; c++) {
      all.append(c);
    }
    all.append("é✓\uD83D\uDE00");
    byte[] raw = all.toString().getBytes(StandardCharsets.UTF_8);
    byte[] escaped = JsonEscaping.escape(raw);

    assertThat(JSON.readValue("\"" + new String(escaped, StandardCharsets.UTF_8) + "\"", String.class))
        .isEqualTo(all.toString());
    assertThat(JsonEscaping.unescape(escaped, 0, escaped.length)).isEqualTo(raw);
    byte[] framed = ("xx" + new String(escaped, StandardCharsets.UTF_8) + "yy").getBytes(StandardCharsets.UTF_8);
    assertThat(JsonEscaping.unescape(framed, 2, escaped.length)).isEqualTo(raw);
  }

  @Test
  void writesIntoAnArrayAtAnOffsetAndSaysWhereItEnded() {
    byte[] raw = "a\"b\\c\n\u001f".getBytes(StandardCharsets.UTF_8);
    byte[] dst = new byte[3 + JsonEscaping.MAX_EXPANSION * raw.length];
    int end = JsonEscaping.escape(raw, 0, raw.length, dst, 3);
    assertThat(new String(dst, 3, end - 3, StandardCharsets.UTF_8)).isEqualTo("a\\\"b\\\\c\\n\\u001f");
    assertThat(dst[0]).isZero();
  }

  @Test
  void unescapingRefusesWhatEscapingNeverWrites() {
    assertThatThrownBy(() -> unescape("ab\\")).hasMessageContaining("A backslash ends");
    assertThatThrownBy(() -> unescape("a\"b")).hasMessageContaining("Byte 34 at 1 is not escaped");
    assertThatThrownBy(() -> unescape("a\nb")).hasMessageContaining("Byte 10 at 1 is not escaped");
    assertThatThrownBy(() -> unescape("\\x")).hasMessageContaining("The escape \\x at 0");
    assertThatThrownBy(() -> unescape("\\u12")).hasMessageContaining("is not \\u00XX");
    assertThatThrownBy(() -> unescape("\\u00zz")).hasMessageContaining("'z' is not a hex digit");
  }

  private static byte[] unescape(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return JsonEscaping.unescape(b, 0, b.length);
  }
}
