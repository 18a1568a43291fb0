package io.logbench.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import java.io.IOException;
import java.util.List;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Round trips of {@link LineBatchSerializer} and its snapshot. */
class LineBatchSerializerTest {

  private final LineBatchSerializer serializer = LineBatchSerializer.INSTANCE;

  @Test
  void roundTripKeepsEveryField() throws IOException {
    LineBatch batch = new LineBatch(2, 16);
    batch.reset(42, 4_200_000_000L);
    append(batch, "first line", 1_620_000_000_123L, 0);
    append(batch, "", 1_620_000_000_123L, 7);
    append(batch, "héllo wörld, a longer line with UTF-8", 1_620_000_000_000L, 19);
    append(batch, "x".repeat(5000), Long.MAX_VALUE / 2, Integer.MAX_VALUE);
    append(batch, "negative time", -5, 3);

    batch.setScheduledNanos(1_620_000_000_999_000_001L);
    LineBatch back = roundTrip(batch);

    assertThat(describe(back)).isEqualTo(describe(batch));
    assertThat(back.scheduledNanos()).isEqualTo(batch.scheduledNanos());
    assertThat(back.timestampNanos(2)).isEqualTo(batch.timestampNanos(2));
  }

  @Test
  void aSubsetKeepsItsLinesSequenceIdsThroughARoundTrip() throws IOException {
    LineBatch batch = new LineBatch();
    batch.reset(4, 4000);
    for (int k = 0; k < 6; k++) {
      append(batch, "line " + k, 1_620_000_000_000L + k, k);
    }
    java.util.BitSet retry = new java.util.BitSet();
    retry.set(1);
    retry.set(4);
    retry.set(5);
    LineBatch sub = batch.select(retry);
    assertThat(sub.count()).isEqualTo(3);
    assertThat(sub.consecutive()).isFalse();
    assertThat(List.of(sub.seq(0), sub.seq(1), sub.seq(2))).containsExactly(4001L, 4004L, 4005L);
    assertThat(sub.lineAsString(1)).isEqualTo("line 4");
    assertThat(sub.timestampNanos(2)).isEqualTo(batch.timestampNanos(5));

    LineBatch back = roundTrip(sub);
    assertThat(List.of(back.seq(0), back.seq(1), back.seq(2))).containsExactly(4001L, 4004L, 4005L);
    assertThat(describe(back)).isEqualTo(describe(sub));
    assertThat(roundTrip(batch).consecutive()).isTrue();
  }

  @Test
  void aBatchOfEscapedLinesStaysEscapedThroughARoundTrip() throws IOException {
    LineBatch batch = new LineBatch();
    batch.setJsonEscaped(true);
    batch.reset(5, 500);
    for (String line : new String[] {"{\"a\":1}", "back\\slash", "new\nline"}) {
      byte[] e = io.logbench.dataset.JsonEscaping.escape(line.getBytes(StandardCharsets.UTF_8));
      batch.append(e, 0, e.length, 1_620_000_000_000L, 1);
    }
    LineBatch back = roundTrip(batch);
    assertThat(back.jsonEscaped()).isTrue();
    assertThat(describe(back)).isEqualTo(describe(batch)).contains("{\"a\":1}", "new\nline");
    assertThat(roundTrip(sample()).jsonEscaped()).isFalse();
  }

  @Test
  void aBatchWrittenByTheFirstLayoutWithItsBooleanReadsBackRaw() throws IOException {
    // the first layout: header, bytes, per line (length, timestamp, stream), a boolean for
    // consecutive ids, then the ids of a batch whose ids are not
    DataOutputSerializer out = new DataOutputSerializer(64);
    out.writeLong(8);
    out.writeLong(800);
    out.writeLong(0);
    out.writeInt(2);
    out.writeInt(3);
    out.write("abc".getBytes(StandardCharsets.US_ASCII));
    out.writeByte(1);
    out.writeLong(1_000);
    out.writeByte(0);
    out.writeByte(2);
    out.writeByte(2); // zig-zag of +1 ms
    out.writeByte(2); // zig-zag of stream 1
    out.writeBoolean(false);
    out.writeByte(0);
    out.writeByte(6); // zig-zag of id 800 + 3
    LineBatch back = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    assertThat(back.jsonEscaped()).isFalse();
    assertThat(back.consecutive()).isFalse();
    assertThat(describe(back)).isEqualTo("batch 8 seq 800 count 2 bytes 3\n800 1000 s0 a\n803 1001 s1 bc");
  }

  @Test
  void roundTripOfAnEmptyBatch() throws IOException {
    LineBatch batch = new LineBatch();
    batch.reset(7, 700);

    batch.setScheduledNanos(1_620_000_000_123_456_789L);
    LineBatch back = roundTrip(batch);

    assertThat(back.scheduledNanos()).isEqualTo(1_620_000_000_123_456_789L);
    assertThat(back.batchId()).isEqualTo(7);
    assertThat(back.firstSeq()).isEqualTo(700);
    assertThat(back.count()).isZero();
    assertThat(back.byteSize()).isZero();
  }

  @Test
  void isCompactForTypicalBatches() throws IOException {
    LineBatch batch = new LineBatch();
    batch.reset(0, 0);
    int bytes = 0;
    for (int k = 0; k < 100; k++) {
      String line = "line-" + k;
      bytes += line.length();
      append(batch, line, 1_620_000_000_000L + k * 10L, k % 20);
    }
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(batch, out);
    // Header 32 bytes (ids, first seq, scheduled time, counts), first timestamp 8, then about 3
    // bytes of metadata per line.
    assertThat(out.length()).isLessThan(32 + bytes + 8 + 3 * 100 + 1);
  }

  @Test
  void copiesBetweenViewsAndSharesObjects() throws IOException {
    LineBatch batch = sample();
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(batch, out);
    DataOutputSerializer copied = new DataOutputSerializer(64);
    serializer.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);

    assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
    // an emitted batch never changes, so chained operators share it instead of copying it
    assertThat(serializer.copy(batch)).isSameAs(batch);
    assertThat(serializer.copy(batch, new LineBatch())).isSameAs(batch);
  }

  @Test
  void snapshotRestoresACompatibleSerializer() throws IOException {
    TypeSerializerSnapshot<LineBatch> snapshot = serializer.snapshotConfiguration();
    DataOutputSerializer out = new DataOutputSerializer(64);
    TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);

    TypeSerializerSnapshot<LineBatch> read =
        TypeSerializerSnapshot.readVersionedSnapshot(
            new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());

    assertThat(read.restoreSerializer()).isEqualTo(serializer);
    assertThat(
            serializer
                .snapshotConfiguration()
                .resolveSchemaCompatibility(read)
                .isCompatibleAsIs())
        .isTrue();
  }

  @Test
  void typeInfoGivesThisSerializer() {
    TypeSerializer<LineBatch> s =
        LineBatchTypeInfo.INSTANCE.createSerializer(new SerializerConfigImpl());
    assertThat(s).isSameAs(serializer);
    assertThat(LineBatchTypeInfo.INSTANCE.getTypeClass()).isEqualTo(LineBatch.class);
  }

  private LineBatch roundTrip(LineBatch batch) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    serializer.serialize(batch, out);
    serializer.serialize(batch, out);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    LineBatch first = serializer.deserialize(in);
    LineBatch second = serializer.deserialize(new LineBatch(), in);
    assertThat(describe(second)).isEqualTo(describe(first));
    assertThat(in.available()).isZero();
    return first;
  }

  private static LineBatch sample() {
    LineBatch batch = new LineBatch();
    batch.reset(3, 300);
    append(batch, "a", 10, 1);
    append(batch, "bb", 20, 2);
    return batch;
  }

  private static void append(LineBatch batch, String line, long ts, int stream) {
    byte[] b = line.getBytes(StandardCharsets.UTF_8);
    batch.append(b, 0, b.length, ts, stream);
  }

  /** Every field of a batch, as text, so two batches compare with a readable diff. */
  static String describe(LineBatch batch) {
    StringBuilder sb = new StringBuilder();
    sb.append("batch ").append(batch.batchId()).append(" seq ").append(batch.firstSeq());
    sb.append(" count ").append(batch.count()).append(" bytes ").append(batch.byteSize());
    if (batch.jsonEscaped()) {
      sb.append(" escaped");
    }
    for (int k = 0; k < batch.count(); k++) {
      sb.append('\n').append(batch.seq(k)).append(' ').append(batch.timestampMillis(k));
      sb.append(" s").append(batch.stream(k)).append(' ').append(batch.lineAsString(k));
    }
    return sb.toString();
  }
}
