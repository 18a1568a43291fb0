package io.logbench.sink;

import io.logbench.sink.BatchOutcome.Resend;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome.WindowTally;
import io.logbench.source.SharedCopySerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer for {@link BatchOutcome}, written out field by field. Every outcome crosses
 * the network twice (to the ledger's tasks and to the collect sink, both from the source task):
 * Flink's own serializer of the record (its fields by reflection, its lists through Kryo) cost
 * about a thirtieth of a 100k-lines/s run's CPU (docs/benchmarks.md, thirteenth and fourteenth
 * rounds).
 *
 * <p>Layout: backend (modified UTF-8), batchId, firstSeq (longs), lines, httpStatus, attempts
 * (ints), the status's ordinal (a byte), scheduledNanos, latencyNanos, serviceNanos (longs); the
 * windows, counted, each its start (long), sent, acked (ints) and its rejections, counted, each a
 * reason and a count; the resends, counted, each a cause, requests and lines.
 *
 * <p>A copy between chained operators is the outcome itself: an outcome is never changed once
 * made (no operator writes into its lists), so sharing it is safe; Flink's copy of a record's
 * fields by reflection, with its lists through Kryo, was about a twentieth of a source task's CPU
 * at 200 batches a second (docs/benchmarks.md, tenth round).
 */
public final class BatchOutcomeSerializer extends SharedCopySerializer<BatchOutcome> {

  private static final long serialVersionUID = 1L;

  public static final BatchOutcomeSerializer INSTANCE = new BatchOutcomeSerializer();

  private static final Status[] STATUSES = Status.values();

  private BatchOutcomeSerializer() {}

  @Override
  public BatchOutcome createInstance() {
    return new BatchOutcome("", 0, 0, 0, Status.ACKED, 0, 0, 0, 0, 0, new ArrayList<>());
  }

  @Override
  public void serialize(BatchOutcome o, DataOutputView out) throws IOException {
    out.writeUTF(o.backend());
    out.writeLong(o.batchId());
    out.writeLong(o.firstSeq());
    out.writeInt(o.lines());
    out.writeInt(o.httpStatus());
    out.writeInt(o.attempts());
    out.writeByte(o.status().ordinal());
    out.writeLong(o.scheduledNanos());
    out.writeLong(o.latencyNanos());
    out.writeLong(o.serviceNanos());
    List<WindowTally> windows = o.windows();
    out.writeInt(windows.size());
    for (int i = 0; i < windows.size(); i++) {
      WindowTally w = windows.get(i);
      out.writeLong(w.windowStartMillis());
      out.writeInt(w.sent());
      out.writeInt(w.acked());
      Map<String, Integer> rejected = w.rejected();
      out.writeInt(rejected.size());
      for (Map.Entry<String, Integer> r : rejected.entrySet()) {
        out.writeUTF(r.getKey());
        out.writeInt(r.getValue());
      }
    }
    List<Resend> resends = o.resends();
    out.writeInt(resends.size());
    for (int i = 0; i < resends.size(); i++) {
      Resend r = resends.get(i);
      out.writeUTF(r.cause());
      out.writeInt(r.requests());
      out.writeInt(r.lines());
    }
  }

  @Override
  public BatchOutcome deserialize(DataInputView in) throws IOException {
    String backend = in.readUTF();
    long batchId = in.readLong();
    long firstSeq = in.readLong();
    int lines = in.readInt();
    int httpStatus = in.readInt();
    int attempts = in.readInt();
    int status = in.readByte();
    if (status < 0 || status >= STATUSES.length) {
      throw new IOException("Corrupt outcome of batch " + batchId + ": status " + status + " of "
          + STATUSES.length + ".");
    }
    long scheduledNanos = in.readLong();
    long latencyNanos = in.readLong();
    long serviceNanos = in.readLong();
    int n = count(in, batchId, "windows");
    List<WindowTally> windows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      long start = in.readLong();
      int sent = in.readInt();
      int acked = in.readInt();
      int m = count(in, batchId, "rejection reasons");
      Map<String, Integer> rejected = new HashMap<>(m * 2);
      for (int j = 0; j < m; j++) {
        rejected.put(in.readUTF(), in.readInt());
      }
      windows.add(new WindowTally(start, sent, acked, rejected));
    }
    n = count(in, batchId, "resends");
    List<Resend> resends = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      resends.add(new Resend(in.readUTF(), in.readInt(), in.readInt()));
    }
    return new BatchOutcome(backend, batchId, firstSeq, lines, STATUSES[status], httpStatus, attempts,
        scheduledNanos, latencyNanos, serviceNanos, windows, resends);
  }

  private static int count(DataInputView in, long batchId, String what) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      throw new IOException("Corrupt outcome of batch " + batchId + ": " + n + " " + what + ".");
    }
    return n;
  }

  @Override
  public TypeSerializerSnapshot<BatchOutcome> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Snapshot of the (configuration-free) outcome serializer, for checkpoints and savepoints. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<BatchOutcome> {

    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
