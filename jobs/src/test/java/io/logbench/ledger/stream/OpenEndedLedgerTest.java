package io.logbench.ledger.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.ledger.LedgerEntry;
import io.logbench.schedule.ConstantRateSchedule;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.schedule.Timelines;
import io.logbench.schedule.TimestampMode;
import io.logbench.sink.BatchOutcome;
import io.logbench.dataset.app.AppJsonDataset;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The ledger's operators open-ended (a canary): a window's state is cleared a horizon after its
 * end on the processing-time clock, a share later than that is dropped, and a dedup block is
 * cleared a horizon after its newest batch was due; the harness's clock is set by the test.
 */
class OpenEndedLedgerTest {

  private static final long W = 1000;
  private static final long HORIZON = 5000;

  private final ExpectedCounts expected = new ExpectedCounts(Timelines.of(TimestampMode.NOW,
      AppJsonDataset.builder().lines(1000).build(), 0, new ConstantRateSchedule(10, 1000)), 0);

  @Test
  void aWindowsStateIsClearedAHorizonAfterItsEndAndLaterSharesAreDropped() throws Exception {
    try (var h = new KeyedOneInputStreamOperatorTestHarness<String, WindowDelta, LedgerEntry>(
        new KeyedProcessOperator<>(new AggregateWindows(expected, W, HORIZON)), WindowDelta::key, Types.STRING)) {
      h.open();
      h.setProcessingTime(100);
      h.processElement(new WindowDelta("b", 0, 5, 5, Map.of(), false), 0);
      h.processElement(new WindowDelta("b", 0, 5, 5, Map.of(), false), 0);
      assertThat(h.extractOutputValues()).extracting(LedgerEntry::acked).containsExactly(5L, 10L);
      assertThat(h.numKeyedStateEntries()).isEqualTo(2); // row and counted
      h.setProcessingTime(W + HORIZON - 1);
      assertThat(h.numKeyedStateEntries()).isEqualTo(2);
      h.setProcessingTime(W + HORIZON);
      assertThat(h.numKeyedStateEntries()).as("cleared at the horizon").isZero();
      assertThat(h.numProcessingTimeTimers()).isZero();
      h.processElement(new WindowDelta("b", 0, 1, 1, Map.of(), false), 0);
      assertThat(h.extractOutputValues()).as("a share after the horizon is dropped").hasSize(2);
      assertThat(h.numKeyedStateEntries()).isZero();
    }
  }

  @Test
  void aDedupBlockIsClearedAHorizonAfterItsNewestBatchWasDue() throws Exception {
    try (var h = new KeyedOneInputStreamOperatorTestHarness<String, BatchOutcome, BatchOutcome>(
        new KeyedProcessOperator<>(new DedupOutcomes(HORIZON)), o -> SeenBatches.key(o.backend(), o.batchId()),
        Types.STRING)) {
      h.open();
      h.setProcessingTime(0);
      h.processElement(outcome(1, 2_000), 0);
      h.processElement(outcome(1, 2_000), 0);
      assertThat(h.extractOutputValues()).as("the second outcome of a batch is dropped").hasSize(1);
      h.processElement(outcome(2, 4_000), 0);
      assertThat(h.numKeyedStateEntries()).isEqualTo(2); // the block and its clearing time
      h.setProcessingTime(9_999);
      assertThat(h.numKeyedStateEntries()).isEqualTo(2);
      // newest batch due at 4 s, plus the horizon, rounded up to 10 s
      h.setProcessingTime(10_000);
      assertThat(h.numKeyedStateEntries()).isZero();
    }
  }

  private static BatchOutcome outcome(long batch, long scheduledMillis) {
    return new BatchOutcome("b", batch, batch * 10, 10, BatchOutcome.Status.ACKED, 200, 1,
        scheduledMillis * 1_000_000L, 0, 0, List.of(new BatchOutcome.WindowTally(0, 10, 10, Map.of())));
  }
}
