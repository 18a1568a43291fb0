package io.logbench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.dataset.LineBatch;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

class LineStampTest {

  private static LineBatch batch(long firstSeq, String... lines) {
    LineBatch b = new LineBatch();
    b.reset(7, firstSeq);
    b.setScheduledNanos(123);
    for (String l : lines) {
      byte[] bytes = l.getBytes(StandardCharsets.UTF_8);
      b.append(bytes, 0, bytes.length, 1_000 + b.count(), 3);
    }
    return b;
  }

  @Test
  void jsonLinesGetTheIdsAsTheirFirstFieldsAndTextLinesAsLogfmtAtTheEnd() {
    LineBatch out = new LineStamp("run-1.a_b").stamp(batch(1234567890L, "{\"msg\":\"hi\"}", "GET / 200", "{}", ""));
    assertThat(out.lineAsString(0)).isEqualTo("{\"logbench_run\":\"run-1.a_b\",\"logbench_seq\":1234567890,\"msg\":\"hi\"}");
    assertThat(out.lineAsString(1)).isEqualTo("GET / 200 logbench_run=run-1.a_b logbench_seq=1234567891");
    assertThat(out.lineAsString(2)).isEqualTo("{\"logbench_run\":\"run-1.a_b\",\"logbench_seq\":1234567892}");
    assertThat(out.lineAsString(3)).isEqualTo(" logbench_run=run-1.a_b logbench_seq=1234567893");
    assertThat(out.batchId()).isEqualTo(7);
    assertThat(out.firstSeq()).isEqualTo(1234567890L);
    assertThat(out.scheduledNanos()).isEqualTo(123);
    assertThat(out.timestampMillis(2)).isEqualTo(1_002);
    assertThat(out.stream(1)).isEqualTo(3);
  }

  @Test
  void aSelectedBatchKeepsItsOwnIds() {
    BitSet lines = new BitSet();
    lines.set(1);
    lines.set(3);
    LineBatch part = batch(10, "a", "b", "c", "{\"x\":0}").select(lines);
    LineBatch out = new LineStamp("r").stamp(part);
    assertThat(out.consecutive()).isFalse();
    assertThat(out.seq(0)).isEqualTo(11);
    assertThat(out.lineAsString(1)).isEqualTo("{\"logbench_run\":\"r\",\"logbench_seq\":13,\"x\":0}");
    assertThat(out.lineAsString(0)).isEqualTo("b logbench_run=r logbench_seq=11");
  }

  @Test
  void aRunIdMustBeOneEveryBackendTakesUnescaped() {
    assertThatThrownBy(() -> new LineStamp("a\"b")).hasMessage(
        "A run id is 1 to 128 letters, digits, '.', '_' or '-', not \"a\"b\".");
    assertThatThrownBy(() -> new StampedLines(null))
        .hasMessage("A pipeline stamps the run's id on its lines; the run has none.");
  }
}
