package io.logbench.ledger.stream;

import io.logbench.ledger.LedgerEntry;
import io.logbench.schedule.ExpectedCounts;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Running totals of one (backend, window), keyed by {@link WindowDelta#key}: every batch share
 * updates the row and emits it (an upsert). A seed only registers the window; if no batch ever
 * reaches it, its row (expected &gt; 0, sent 0) is emitted when the input ends, which the final
 * watermark of a bounded run signals.
 *
 * <p>Open-ended (a canary, which never ends: {@code horizonMillis > 0}), a window's state lives
 * until {@code horizonMillis} after the window's end, on the processing-time clock, and is then
 * cleared by a timer, so the state holds the open windows only. A share that comes after that
 * (an outcome later than the horizon) is dropped and counted ({@code lateWindowShares}): its
 * window's verdict is final by then, and a fresh row would overwrite the window's totals with
 * that share alone.
 */
public final class AggregateWindows extends KeyedProcessFunction<String, WindowDelta, LedgerEntry> {

  private static final long serialVersionUID = 1L;

  private final ExpectedCounts expected;
  private final long windowMillis;
  private final long horizonMillis;

  private transient ValueState<LedgerEntry> row;
  private transient ValueState<Boolean> counted;
  private transient Counter late;

  /** A bounded run's totals: every window's state is kept to the end of input. */
  public AggregateWindows(ExpectedCounts expected, long windowMillis) {
    this(expected, windowMillis, 0);
  }

  /**
   * Totals whose windows are cleared {@code horizonMillis} after their end (0: kept to the end of
   * input).
   */
  public AggregateWindows(ExpectedCounts expected, long windowMillis, long horizonMillis) {
    if (horizonMillis < 0) {
      throw new IllegalArgumentException("The ledger's horizon must not be negative, not " + horizonMillis + " ms.");
    }
    this.expected = expected;
    this.windowMillis = windowMillis;
    this.horizonMillis = horizonMillis;
  }

  @Override
  public void open(OpenContext openContext) {
    row = getRuntimeContext().getState(new ValueStateDescriptor<>("row", TypeInformation.of(LedgerEntry.class)));
    counted = getRuntimeContext().getState(new ValueStateDescriptor<>("counted", Types.BOOLEAN));
    late = getRuntimeContext().getMetricGroup().counter("lateWindowShares");
  }

  @Override
  public void processElement(WindowDelta delta, Context ctx, Collector<LedgerEntry> out) throws Exception {
    long clearAt = delta.windowStartMillis() + windowMillis + horizonMillis;
    if (horizonMillis > 0 && ctx.timerService().currentProcessingTime() >= clearAt) {
      late.inc();
      return;
    }
    LedgerEntry current = row.value();
    if (current == null) {
      current = emptyRow(delta.backend(), delta.windowStartMillis());
      if (horizonMillis > 0) {
        ctx.timerService().registerProcessingTimeTimer(clearAt);
      }
    }
    if (delta.seed()) {
      if (!Boolean.TRUE.equals(counted.value())) {
        row.update(current);
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
      }
      return;
    }
    LedgerEntry next = current.plus(delta.sent(), delta.acked(), delta.rejected());
    row.update(next);
    counted.update(true);
    out.collect(next);
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<LedgerEntry> out) throws Exception {
    if (horizonMillis > 0 && ctx.timeDomain() == org.apache.flink.streaming.api.TimeDomain.PROCESSING_TIME) {
      row.clear();
      counted.clear();
      return;
    }
    LedgerEntry current = row.value();
    if (current != null && !Boolean.TRUE.equals(counted.value()) && current.expected() > 0) {
      out.collect(current);
    }
  }

  /** The row of a window before any batch, with its expected count. */
  public LedgerEntry emptyRow(String backend, long windowStartMillis) {
    long end = windowStartMillis + windowMillis;
    return LedgerEntry.empty(backend, windowStartMillis, end, expected.count(windowStartMillis, end));
  }
}
