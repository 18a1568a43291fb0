package io.logbench.sink.files.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.WindowGrid;
import io.logbench.source.LineBatchSerializer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The files backend's operator (parallelism 1): holds back batches that arrive before an earlier
 * batch id, appends each batch once every earlier one is written, and emits an ACKED {@link
 * BatchOutcome} for it. Its checkpoint holds the next batch id, the file lengths and the batches
 * held back; a restore truncates the files to those lengths, so no line is written twice or lost.
 *
 * <p>Batches the run never sends (a canary's gaps, {@link io.logbench.schedule.SkippedBatches})
 * are not waited for.
 *
 * <p>Metrics: counters {@code batchesWritten}, {@code linesWritten}; gauge {@code batchesHeldBack}.
 */
public final class OrderedLayoutWriter extends AbstractStreamOperator<BatchOutcome>
    implements OneInputStreamOperator<LineBatch, BatchOutcome>, BoundedOneInput {

  private static final long serialVersionUID = 1L;

  private final String backend;
  private final String dir;
  private final String zone;
  private final WindowGrid grid;
  private final io.logbench.schedule.SkippedBatches skipped;

  private transient DayFileAppender appender;
  private transient TreeMap<Long, LineBatch> pending;
  private transient long nextBatchId;
  private transient ListState<byte[]> layoutState;
  private transient ListState<LineBatch> pendingState;
  private transient Counter batchesWritten;
  private transient Counter linesWritten;

  public OrderedLayoutWriter(String backend, String dir, String zone, WindowGrid grid) {
    this(backend, dir, zone, grid, io.logbench.schedule.SkippedBatches.none());
  }

  /** A writer that never waits for the {@code skipped} batches (a canary's gaps: never sent). */
  public OrderedLayoutWriter(String backend, String dir, String zone, WindowGrid grid,
      io.logbench.schedule.SkippedBatches skipped) {
    this.skipped = skipped;
    this.backend = backend;
    this.dir = dir;
    this.zone = zone;
    this.grid = grid;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    layoutState =
        context.getOperatorStateStore()
            .getListState(new ListStateDescriptor<>("files-layout", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    pendingState =
        context.getOperatorStateStore()
            .getListState(new ListStateDescriptor<>("files-pending", LineBatchSerializer.INSTANCE));
    appender = new DayFileAppender(Path.of(dir), ZoneId.of(zone));
    pending = new TreeMap<>();
    nextBatchId = 0;
    if (context.isRestored()) {
      Iterator<byte[]> it = layoutState.get().iterator();
      if (it.hasNext()) {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(it.next()));
        nextBatchId = in.readLong();
        appender.restore(DayFileAppender.State.read(in));
      }
      for (LineBatch b : pendingState.get()) {
        pending.put(b.batchId(), b);
      }
      LOG.info("Files backend {} restored: next batch {}, {} batches held back.", backend, nextBatchId, pending.size());
    }
  }

  @Override
  public void open() throws Exception {
    super.open();
    batchesWritten = getRuntimeContext().getMetricGroup().counter("batchesWritten");
    linesWritten = getRuntimeContext().getMetricGroup().counter("linesWritten");
    getRuntimeContext().getMetricGroup().gauge("batchesHeldBack", () -> pending.size());
  }

  @Override
  public void processElement(StreamRecord<LineBatch> element) throws Exception {
    LineBatch batch = element.getValue();
    if (batch.batchId() < nextBatchId || pending.containsKey(batch.batchId())) {
      // a batch the checkpoint already covers: writing it again would duplicate its lines
      LOG.warn("Files backend {} dropped batch {} it had already.", backend, batch.batchId());
      return;
    }
    pending.put(batch.batchId(), batch);
    drain();
  }

  private void drain() throws Exception {
    LineBatch next;
    while ((next = pending.remove(nextBatchId = skipped.next(nextBatchId))) != null) {
      long startNanos = nowNanos();
      appender.append(next);
      long endNanos = nowNanos();
      output.collect(new StreamRecord<>(outcome(next, startNanos, endNanos)));
      batchesWritten.inc();
      linesWritten.inc(next.count());
      nextBatchId++;
    }
  }

  private BatchOutcome outcome(LineBatch b, long startNanos, long endNanos) {
    long scheduled = b.scheduledNanos() > 0 ? b.scheduledNanos() : startNanos;
    return new BatchOutcome(
        backend, b.batchId(), b.firstSeq(), b.count(), BatchOutcome.Status.ACKED, 0, 1,
        scheduled, Math.max(0, endNanos - scheduled), endNanos - startNanos, tallies(b, grid));
  }

  /** Lines of the batch per window, all acknowledged (mutable collections, for Flink's Kryo). */
  static List<BatchOutcome.WindowTally> tallies(LineBatch b, WindowGrid grid) {
    TreeMap<Long, Integer> perWindow = new TreeMap<>();
    for (int k = 0; k < b.count(); k++) {
      perWindow.merge(grid.windowStart(b.timestampMillis(k)), 1, Integer::sum);
    }
    List<BatchOutcome.WindowTally> out = new ArrayList<>(perWindow.size());
    perWindow.forEach((start, n) -> out.add(new BatchOutcome.WindowTally(start, n, n, new HashMap<>())));
    return out;
  }

  private static long nowNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeLong(nextBatchId);
    appender.snapshot().write(out);
    out.flush();
    layoutState.update(List.of(bytes.toByteArray()));
    pendingState.update(new ArrayList<>(pending.values()));
  }

  @Override
  public void endInput() throws Exception {
    drain();
    if (!pending.isEmpty()) {
      throw new IllegalStateException(
          "The files backend " + backend + " never received batch " + nextBatchId + ", so "
              + pending.size() + " later batches (from " + pending.firstKey()
              + ") were not written.");
    }
    appender.flush();
  }

  @Override
  public void close() throws Exception {
    if (appender != null) {
      appender.close();
    }
    super.close();
  }
}
