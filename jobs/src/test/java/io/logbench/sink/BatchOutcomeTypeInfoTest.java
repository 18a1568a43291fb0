package io.logbench.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.sink.BatchOutcome.Resend;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome.WindowTally;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class BatchOutcomeTypeInfoTest {

  private final TypeSerializer<BatchOutcome> serializer =
      BatchOutcomeTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl());

  private static BatchOutcome outcome() {
    return new BatchOutcome("vl", 7, 700, 100, Status.PARTIAL, 400, 3, 1_620_000_000_000_000_000L, 25_000_000L,
        4_000_000L,
        List.of(new WindowTally(1_620_000_000_000L, 60, 58, Map.of("400 too old", 2)),
            new WindowTally(1_620_000_060_000L, 40, 40, Map.of())),
        List.of(new Resend("429", 1, 100), new Resend("partial", 1, 2)));
  }

  @Test
  void aCopyBetweenChainedOperatorsIsTheOutcomeItself() {
    BatchOutcome o = outcome();
    assertThat(serializer.copy(o)).isSameAs(o);
    assertThat(serializer.copy(o, outcome())).isSameAs(o);
    assertThat(serializer.duplicate().copy(o)).isSameAs(o);
  }

  @Test
  void anOutcomeCrossesTheNetworkWhole() throws IOException {
    BatchOutcome o = outcome();
    DataOutputSerializer out = new DataOutputSerializer(256);
    serializer.serialize(o, out);
    BatchOutcome back = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    assertThat(back).isEqualTo(o).isNotSameAs(o);

    DataOutputSerializer copied = new DataOutputSerializer(256);
    serializer.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
    assertThat(serializer.deserialize(new DataInputDeserializer(copied.getCopyOfBuffer()))).isEqualTo(o);
  }

  @Test
  void anOutcomeWithoutWindowsOrResendsCrossesTheNetworkWhole() throws IOException {
    BatchOutcome o = new BatchOutcome("loki", -1, 0, 0, Status.ABORTED, 0, 0, 0, 0, 0, List.of());
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(o, out);
    assertThat(serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()))).isEqualTo(o);
  }

  @Test
  void aCorruptStatusIsNamed() throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    serializer.serialize(outcome(), out);
    byte[] bytes = out.getCopyOfBuffer();
    bytes[2 + "vl".length() + 8 + 8 + 4 + 4 + 4] = 9; // the status's ordinal
    assertThatThrownBy(() -> serializer.deserialize(new DataInputDeserializer(bytes)))
        .isInstanceOf(IOException.class).hasMessageContaining("status 9");
  }

  @Test
  void flinksTypeExtractionTakesTheOutcomesOwnTypeInformation() {
    assertThat(TypeInformation.of(BatchOutcome.class)).isSameAs(BatchOutcomeTypeInfo.INSTANCE);
  }

  @Test
  void snapshotRestoresACompatibleSerializer() throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
    TypeSerializerSnapshot<BatchOutcome> read = TypeSerializerSnapshot.readVersionedSnapshot(
        new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());

    TypeSerializer<BatchOutcome> restored = read.restoreSerializer();
    assertThat(restored).isSameAs(BatchOutcomeSerializer.INSTANCE);
    BatchOutcome o = outcome();
    assertThat(restored.copy(o)).isSameAs(o);
    assertThat(serializer.snapshotConfiguration().resolveSchemaCompatibility(read).isCompatibleAsIs()).isTrue();
  }
}
