package io.logbench.ledger.stream;

import io.logbench.sink.BatchOutcome;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Passes on the first outcome of each (backend, batch id) and drops the others, keyed by {@link
 * SeenBatches#key}. Metric: counter {@code duplicateOutcomes}.
 */
public final class DedupOutcomes extends KeyedProcessFunction<String, BatchOutcome, BatchOutcome> {

  private static final long serialVersionUID = 1L;

  private transient ValueState<long[]> seen;
  private transient Counter duplicates;

  @Override
  public void open(OpenContext openContext) {
    seen =
        getRuntimeContext()
            .getState(new ValueStateDescriptor<>("seen-batches", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
    duplicates = getRuntimeContext().getMetricGroup().counter("duplicateOutcomes");
  }

  @Override
  public void processElement(BatchOutcome outcome, Context ctx, Collector<BatchOutcome> out)
      throws Exception {
    long[] block = seen.value();
    if (block == null) {
      block = SeenBatches.emptyBlock();
    }
    if (SeenBatches.markFirst(block, outcome.batchId())) {
      seen.update(block);
      out.collect(outcome);
    } else {
      duplicates.inc();
    }
  }
}
