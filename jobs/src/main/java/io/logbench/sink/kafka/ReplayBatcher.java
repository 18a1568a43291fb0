package io.logbench.sink.kafka;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.schemas.LogRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Collects replayed records per batch id (the key) and emits them as {@link LineBatch}es in
 * sequence order: as soon as all {@code batchSize} lines are in, or at the end of the bounded
 * input (the final watermark fires the batch's timer) for batches that stay short.
 */
final class ReplayBatcher extends KeyedProcessFunction<Long, LogRecord, LineBatch> {

  private static final long serialVersionUID = 1L;

  private final StreamCatalog streams;
  private final int batchSize;

  private transient MapState<Long, LogRecord> lines;
  private transient ValueState<Integer> held;
  private transient Map<Map<String, String>, Integer> streamIds;

  ReplayBatcher(StreamCatalog streams, int batchSize) {
    this.streams = streams;
    this.batchSize = batchSize;
  }

  @Override
  public void open(OpenContext context) {
    lines =
        getRuntimeContext()
            .getMapState(new MapStateDescriptor<>("lines", Types.LONG, new AvroTypeInfo<>(LogRecord.class)));
    held = getRuntimeContext().getState(new ValueStateDescriptor<>("held", Types.INT));
    streamIds = new HashMap<>();
    for (int id = 0; id < streams.size(); id++) {
      streamIds.put(streams.labels(id), id);
    }
  }

  @Override
  public void processElement(LogRecord record, Context ctx, Collector<LineBatch> out) throws Exception {
    if (lines.contains(record.getSeq())) {
      return;
    }
    lines.put(record.getSeq(), record);
    int n = held.value() == null ? 1 : held.value() + 1;
    if (n == batchSize) {
      emit(ctx.getCurrentKey(), out);
    } else {
      if (n == 1) {
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
      }
      held.update(n);
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<LineBatch> out) throws Exception {
    if (held.value() != null) {
      emit(ctx.getCurrentKey(), out);
    }
  }

  private void emit(long batchId, Collector<LineBatch> out) throws Exception {
    List<LogRecord> sorted = new ArrayList<>();
    lines.values().forEach(sorted::add);
    sorted.sort((a, b) -> Long.compare(a.getSeq(), b.getSeq()));
    lines.clear();
    held.clear();
    LineBatch batch = null;
    for (LogRecord r : sorted) {
      if (batch == null || r.getSeq() != batch.seq(batch.count() - 1) + 1) {
        if (batch != null) {
          out.collect(batch);
        }
        batch = new LineBatch(sorted.size(), 128 * sorted.size());
        batch.reset(batchId, r.getSeq());
      }
      byte[] bytes = r.getLine().getBytes(StandardCharsets.UTF_8);
      batch.append(bytes, 0, bytes.length, r.getTimestampMillis(), streamId(r));
    }
    if (batch != null) {
      out.collect(batch);
    }
  }

  private int streamId(LogRecord r) {
    Integer id = streamIds.get(r.getLabels());
    if (id == null) {
      throw new IllegalStateException(
          "Replayed line " + r.getSeq() + " has labels " + r.getLabels() + " that no stream of the dataset has.");
    }
    return id;
  }
}
