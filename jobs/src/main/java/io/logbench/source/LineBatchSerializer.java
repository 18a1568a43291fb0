package io.logbench.source;

import io.logbench.dataset.LineBatch;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer for {@link LineBatch}, compact because batches cross the network: the line
 * bytes as they are, line lengths and stream ids as varints, timestamps as zig-zag varint deltas.
 *
 * <p>Layout: batchId, firstSeq, scheduledNanos (longs), count, byteSize (ints), the bytes, then per line its
 * length, its timestamp (the first in full, the rest as deltas) and its stream, then a flags byte
 * (consecutive ids; lines held JSON escaped) and, for ids that are not consecutive, each line's.
 *
 * <p>A copy between chained operators is the batch itself ({@link SharedCopySerializer}): a batch
 * handed to Flink is never changed afterwards (the source emits a {@link LineBatch#copy} of its
 * scratch batch, everything else builds a new one, and no operator writes into a batch it
 * receives); a deep copy cost about a seventh of generating the batch (JFR execution samples of a
 * 100-line push run).
 */
public final class LineBatchSerializer extends SharedCopySerializer<LineBatch> {

  private static final long serialVersionUID = 1L;

  public static final LineBatchSerializer INSTANCE = new LineBatchSerializer();

  /**
   * Bits of the flags byte after the lines. A batch of the first layout wrote a boolean there
   * (1 for consecutive lines), which reads as raw lines with the same consecutiveness.
   */
  private static final int CONSECUTIVE = 1;
  private static final int JSON_ESCAPED = 2;

  @Override
  public LineBatch createInstance() {
    return new LineBatch();
  }

  @Override
  public void serialize(LineBatch batch, DataOutputView out) throws IOException {
    int count = batch.count();
    out.writeLong(batch.batchId());
    out.writeLong(batch.firstSeq());
    out.writeLong(batch.scheduledNanos());
    out.writeInt(count);
    out.writeInt(batch.byteSize());
    out.write(batch.data(), 0, batch.byteSize());
    long previous = 0;
    for (int k = 0; k < count; k++) {
      writeVarLong(out, batch.length(k));
      long ts = batch.timestampMillis(k);
      if (k == 0) {
        out.writeLong(ts);
      } else {
        writeVarLong(out, zigZag(ts - previous));
      }
      previous = ts;
      writeVarLong(out, zigZag(batch.stream(k)));
    }
    // a selected sub-batch (a retry of some lines) names its lines' sequence ids
    out.writeByte((batch.consecutive() ? CONSECUTIVE : 0) | (batch.jsonEscaped() ? JSON_ESCAPED : 0));
    if (!batch.consecutive()) {
      for (int k = 0; k < count; k++) {
        writeVarLong(out, zigZag(batch.seq(k) - batch.firstSeq()));
      }
    }
  }

  @Override
  public LineBatch deserialize(DataInputView in) throws IOException {
    long batchId = in.readLong();
    long firstSeq = in.readLong();
    long scheduledNanos = in.readLong();
    int count = in.readInt();
    int size = in.readInt();
    if (count < 0 || size < 0) {
      throw new IOException(
          "Corrupt line batch: " + count + " lines of " + size + " bytes in batch " + batchId + ".");
    }
    byte[] bytes = new byte[size];
    in.readFully(bytes);
    int[] ends = new int[count];
    long[] timestamps = new long[count];
    int[] streams = new int[count];
    int end = 0;
    long ts = 0;
    for (int k = 0; k < count; k++) {
      end += (int) readVarLong(in);
      ts = k == 0 ? in.readLong() : ts + unZigZag(readVarLong(in));
      ends[k] = end;
      timestamps[k] = ts;
      streams[k] = (int) unZigZag(readVarLong(in));
    }
    if (end != size) {
      throw new IOException(
          "Corrupt line batch " + batchId + ": lines add up to " + end + " of " + size + " bytes.");
    }
    int flags = in.readUnsignedByte();
    LineBatch batch = new LineBatch(Math.max(1, count), size);
    batch.reset(batchId, firstSeq);
    batch.setScheduledNanos(scheduledNanos);
    batch.setJsonEscaped((flags & JSON_ESCAPED) != 0);
    System.arraycopy(bytes, 0, batch.data(), batch.reserve(size), size);
    for (int k = 0; k < count; k++) {
      batch.commitLine(ends[k], timestamps[k], streams[k]);
    }
    if ((flags & CONSECUTIVE) == 0) {
      long[] seqs = new long[Math.max(1, count)];
      for (int k = 0; k < count; k++) {
        seqs[k] = firstSeq + unZigZag(readVarLong(in));
      }
      batch.setSequenceIds(seqs);
    }
    return batch;
  }

  @Override
  public TypeSerializerSnapshot<LineBatch> snapshotConfiguration() {
    return new LineBatchSerializerSnapshot();
  }

  private static long zigZag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  private static long unZigZag(long v) {
    return (v >>> 1) ^ -(v & 1);
  }

  private static void writeVarLong(DataOutputView out, long v) throws IOException {
    while ((v & ~0x7FL) != 0) {
      out.writeByte((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.writeByte((int) v);
  }

  private static long readVarLong(DataInputView in) throws IOException {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = in.readByte();
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw new IOException("Corrupt line batch: a varint runs over 64 bits.");
  }

  /** Snapshot of the (configuration-free) line batch serializer, for checkpoints and savepoints. */
  public static final class LineBatchSerializerSnapshot
      extends SimpleTypeSerializerSnapshot<LineBatch> {

    public LineBatchSerializerSnapshot() {
      super(() -> INSTANCE);
    }
  }
}
