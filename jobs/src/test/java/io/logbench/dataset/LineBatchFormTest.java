package io.logbench.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/** A batch holding its lines escaped for a JSON string keeps that form and gives the raw lines back. */
class LineBatchFormTest {

  private static final String[] LINES = {"{\"a\":\"x\"}", "plain", "tab\there \\ and \"quotes\"\n", ""};

  private static LineBatch escaped() {
    LineBatch b = new LineBatch(1, 16);
    b.setJsonEscaped(true);
    b.reset(4, 400);
    for (int k = 0; k < LINES.length; k++) {
      byte[] e = JsonEscaping.escape(LINES[k].getBytes(StandardCharsets.UTF_8));
      b.append(e, 0, e.length, 1_000 + k, k);
    }
    return b;
  }

  @Test
  void theRawLinesComeBackFromTheEscapedBytes() {
    LineBatch b = escaped();
    assertThat(b.jsonEscaped()).isTrue();
    for (int k = 0; k < LINES.length; k++) {
      byte[] raw = LINES[k].getBytes(StandardCharsets.UTF_8);
      assertThat(b.lineAsString(k)).isEqualTo(LINES[k]);
      assertThat(b.rawLine(k)).isEqualTo(raw);
      assertThat(b.rawLength(k)).isEqualTo(raw.length);
    }
    assertThat(b.length(2)).isGreaterThan(b.rawLength(2));
  }

  @Test
  void rawBytesAreRefusedFromAnEscapedBatchAndGivenFromARawOne() {
    assertThatThrownBy(() -> escaped().rawData())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Batch 4 holds its lines escaped for a JSON string");
    LineBatch raw = new LineBatch();
    raw.append(new byte[] {'x'}, 0, 1, 1, 0);
    assertThat(raw.rawData()).isSameAs(raw.data());
    assertThat(raw.rawLength(0)).isEqualTo(1);
  }

  @Test
  void copiesSelectionsAndResetsKeepTheForm() {
    LineBatch b = escaped();
    LineBatch copy = b.copy();
    assertThat(copy.jsonEscaped()).isTrue();
    assertThat(copy.lineAsString(2)).isEqualTo(LINES[2]);
    BitSet pick = new BitSet();
    pick.set(0);
    pick.set(2);
    LineBatch sub = b.select(pick);
    assertThat(sub.jsonEscaped()).isTrue();
    assertThat(sub.lineAsString(1)).isEqualTo(LINES[2]);
    b.reset(5, 500);
    assertThat(b.jsonEscaped()).isTrue();
    assertThat(new LineBatch().select(new BitSet()).jsonEscaped()).isFalse();
  }

  @Test
  void theFormIsSetBeforeTheFirstLineOnly() {
    LineBatch b = escaped();
    assertThatThrownBy(() -> b.setJsonEscaped(false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("set before its first line, not after 4");
    b.reset(5, 500);
    b.setJsonEscaped(false);
    assertThat(b.jsonEscaped()).isFalse();
  }
}
