package io.logbench.ledger.stream;

import io.logbench.sink.BatchOutcome;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Passes on the first outcome of each (backend, batch id) and drops the others, keyed by {@link
 * SeenBatches#key}. Metric: counter {@code duplicateOutcomes}.
 *
 * <p>Open-ended (a canary: {@code horizonMillis > 0}), a block of batch ids is cleared by a
 * processing-time timer once {@code horizonMillis} have passed since the newest scheduled time
 * of its batches (rounded up to {@value #TIMER_GRAIN_MILLIS} ms, so a block holds a few timers,
 * not one per batch): the state then holds the blocks of recent batches only. An outcome of a
 * cleared block passes as a first one, and the ledger drops it as later than its window's
 * horizon ({@link AggregateWindows}), which must be no longer than this one.
 */
public final class DedupOutcomes extends KeyedProcessFunction<String, BatchOutcome, BatchOutcome> {

  private static final long serialVersionUID = 1L;

  /** Clearing times are rounded up to this. */
  static final long TIMER_GRAIN_MILLIS = 10_000;

  private final long horizonMillis;

  private transient ValueState<long[]> seen;
  private transient ValueState<Long> clearAt;
  private transient Counter duplicates;

  /** A bounded run's dedup: every block is kept to the end of input. */
  public DedupOutcomes() {
    this(0);
  }

  /** A dedup whose blocks are cleared {@code horizonMillis} after their newest batch was due (0: kept). */
  public DedupOutcomes(long horizonMillis) {
    if (horizonMillis < 0) {
      throw new IllegalArgumentException("The dedup's horizon must not be negative, not " + horizonMillis + " ms.");
    }
    this.horizonMillis = horizonMillis;
  }

  @Override
  public void open(OpenContext openContext) {
    seen =
        getRuntimeContext()
            .getState(new ValueStateDescriptor<>("seen-batches", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
    clearAt = getRuntimeContext().getState(new ValueStateDescriptor<>("seen-batches-clear-at", Types.LONG));
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
      if (horizonMillis > 0) {
        long due = outcome.scheduledNanos() / 1_000_000L + horizonMillis;
        long at = Math.floorDiv(due + TIMER_GRAIN_MILLIS - 1, TIMER_GRAIN_MILLIS) * TIMER_GRAIN_MILLIS;
        Long before = clearAt.value();
        if (before == null || at > before) {
          clearAt.update(at);
          ctx.timerService().registerProcessingTimeTimer(at);
        }
      }
      out.collect(outcome);
    } else {
      duplicates.inc();
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<BatchOutcome> out) throws Exception {
    Long at = clearAt.value();
    if (at != null && timestamp >= at) {
      seen.clear();
      clearAt.clear();
    }
  }
}
