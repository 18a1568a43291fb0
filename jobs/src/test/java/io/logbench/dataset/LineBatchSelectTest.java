package io.logbench.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.source.LineBatchSerializer;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Sub-batches of the lines a backend asked to resend keep each line's identity. */
class LineBatchSelectTest {

  private static LineBatch batch() {
    LineBatch b = new LineBatch(2, 16);
    b.reset(9, 500);
    for (int k = 0; k < 6; k++) {
      byte[] line = ("line-" + k).getBytes(StandardCharsets.UTF_8);
      b.append(line, 0, line.length, 1_000 + k, k % 2);
    }
    b.setScheduledNanos(77);
    return b;
  }

  @Test
  void selectKeepsSeqsTimestampsStreamsAndBytes() {
    LineBatch b = batch();
    BitSet pick = new BitSet();
    pick.set(1);
    pick.set(4);
    pick.set(5);
    LineBatch s = b.select(pick);
    assertThat(s.count()).isEqualTo(3);
    assertThat(s.batchId()).isEqualTo(9);
    assertThat(s.scheduledNanos()).isEqualTo(77);
    assertThat(s.consecutive()).isFalse();
    assertThat(s.firstSeq()).isEqualTo(501);
    assertThat(new long[] {s.seq(0), s.seq(1), s.seq(2)}).containsExactly(501, 504, 505);
    assertThat(s.lineAsString(1)).isEqualTo("line-4");
    assertThat(s.timestampMillis(2)).isEqualTo(1_005);
    assertThat(s.stream(0)).isEqualTo(1);
    assertThat(s.timestampNanos(1)).isEqualTo(b.timestampNanos(4));
    assertThat(s.copy().seq(2)).isEqualTo(505);
    assertThat(b.consecutive()).isTrue();
  }

  @Test
  void aSubBatchKeepsItsSequenceIdsThroughTheSerializer() throws Exception {
    BitSet pick = new BitSet();
    pick.set(2);
    pick.set(4);
    LineBatch s = batch().select(pick);
    DataOutputSerializer out = new DataOutputSerializer(64);
    LineBatchSerializer.INSTANCE.serialize(s, out);
    LineBatch back = LineBatchSerializer.INSTANCE.deserialize(
        new org.apache.flink.core.memory.DataInputDeserializer(out.getCopyOfBuffer()));
    assertThat(back.consecutive()).isFalse();
    assertThat(back.seq(0)).isEqualTo(s.seq(0));
    assertThat(back.seq(1)).isEqualTo(s.seq(1));
    assertThat(back.lineAsString(1)).isEqualTo(s.lineAsString(1));
  }

  @Test
  void resetForgetsTheSelection() {
    BitSet pick = new BitSet();
    pick.set(3);
    LineBatch s = batch().select(pick);
    s.reset(1, 10);
    assertThat(s.consecutive()).isTrue();
  }
}
