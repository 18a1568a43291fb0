package io.logbench.ledger.stream;

import io.logbench.ledger.LedgerEntry;
import io.logbench.schedule.ExpectedCounts;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Running totals of one (backend, window), keyed by {@link WindowDelta#key}: every batch share
 * updates the row and emits it (an upsert). A seed only registers the window; if no batch ever
 * reaches it, its row (expected &gt; 0, sent 0) is emitted when the input ends, which the final
 * watermark of a bounded run signals.
 */
public final class AggregateWindows extends KeyedProcessFunction<String, WindowDelta, LedgerEntry> {

  private static final long serialVersionUID = 1L;

  private final ExpectedCounts expected;
  private final long windowMillis;

  private transient ValueState<LedgerEntry> row;
  private transient ValueState<Boolean> counted;

  public AggregateWindows(ExpectedCounts expected, long windowMillis) {
    this.expected = expected;
    this.windowMillis = windowMillis;
  }

  @Override
  public void open(OpenContext openContext) {
    row = getRuntimeContext().getState(new ValueStateDescriptor<>("row", TypeInformation.of(LedgerEntry.class)));
    counted = getRuntimeContext().getState(new ValueStateDescriptor<>("counted", Types.BOOLEAN));
  }

  @Override
  public void processElement(WindowDelta delta, Context ctx, Collector<LedgerEntry> out) throws Exception {
    LedgerEntry current = row.value();
    if (current == null) {
      current = emptyRow(delta.backend(), delta.windowStartMillis());
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
