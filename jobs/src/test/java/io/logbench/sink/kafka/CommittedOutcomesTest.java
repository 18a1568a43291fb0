package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome.WindowTally;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * {@link CommittedOutcomes} in Flink's operator test harness: a batch is reported when the
 * checkpoint after it is committed, not before; a failed commit fails its checkpoint's batches;
 * batches waiting in a checkpoint are reported after a restore from it.
 */
class CommittedOutcomesTest {

  private static final long SCHEDULED = 1_000_000_000_000L;

  private static HandedBatch handed(long batchId) {
    List<WindowTally> windows = new ArrayList<>(List.of(new WindowTally(60_000, 10, 10, new HashMap<>())));
    BatchOutcome outcome = new BatchOutcome("eos", batchId, batchId * 10, 10, Status.ACKED, 0, 1,
        SCHEDULED + batchId, 0, 0, windows);
    return new HandedBatch(SCHEDULED + batchId + 5, outcome);
  }

  private static TwoInputStreamOperatorTestHarness<HandedBatch, Tuple2<Long, Integer>, BatchOutcome> harness()
      throws Exception {
    return new TwoInputStreamOperatorTestHarness<>(new CommittedOutcomes("eos"));
  }

  private static void hand(TwoInputStreamOperatorTestHarness<HandedBatch, Tuple2<Long, Integer>, BatchOutcome> h,
      long... batchIds) throws Exception {
    for (long id : batchIds) {
      h.processElement1(new StreamRecord<>(handed(id)));
    }
  }

  private static void commit(TwoInputStreamOperatorTestHarness<HandedBatch, Tuple2<Long, Integer>, BatchOutcome> h,
      long checkpoint, int failed) throws Exception {
    h.processElement2(new StreamRecord<>(Tuple2.of(checkpoint, failed)));
  }

  private static List<Long> reported(TwoInputStreamOperatorTestHarness<HandedBatch, Tuple2<Long, Integer>, BatchOutcome> h) {
    return h.extractOutputValues().stream().map(BatchOutcome::batchId).toList();
  }

  @Test
  void aBatchIsReportedWhenTheCheckpointAfterItIsCommitted() throws Exception {
    try (var h = harness()) {
      h.open();
      hand(h, 0, 1);
      commit(h, 1, 0); // a commit of an earlier checkpoint's transaction: not these batches'
      assertThat(h.extractOutputValues()).isEmpty();
      h.snapshot(2, 0);
      hand(h, 2);
      commit(h, 2, 0);
      assertThat(reported(h)).containsExactly(0L, 1L);
      h.snapshot(3, 0);
      h.snapshot(4, 0);
      commit(h, 4, 0); // commits come in checkpoint order; 4 implies 3
      assertThat(reported(h)).containsExactly(0L, 1L, 2L);
      BatchOutcome o = h.extractOutputValues().get(0);
      assertThat(o.status()).isEqualTo(Status.ACKED);
      assertThat(o.acked()).isEqualTo(10);
      assertThat(o.latencyNanos()).as("from the scheduled time").isGreaterThanOrEqualTo(o.serviceNanos());
      assertThat(o.latencyNanos() - o.serviceNanos()).as("scheduled 5 ns before it was handed over").isEqualTo(5);
    }
  }

  @Test
  void aCheckpointWhoseCommitFailedFailsItsBatches() throws Exception {
    try (var h = harness()) {
      h.open();
      hand(h, 0);
      h.snapshot(1, 0);
      hand(h, 1);
      h.snapshot(2, 0);
      commit(h, 1, 0);
      commit(h, 2, 1);
      List<BatchOutcome> out = h.extractOutputValues();
      assertThat(out).extracting(BatchOutcome::status).containsExactly(Status.ACKED, Status.FAILED);
      assertThat(out.get(1).acked()).isZero();
      assertThat(out.get(1).windows()).containsExactly(
          new WindowTally(60_000, 10, 0, Map.of(CommittedOutcomes.LOST, 10)));
    }
  }

  @Test
  void batchesWaitingInACheckpointAreReportedWhenItsCommitIsRepeatedAfterARestore() throws Exception {
    OperatorSubtaskState state;
    try (var h = harness()) {
      h.open();
      hand(h, 0, 1);
      state = h.snapshot(1, 0);
      hand(h, 2); // after the checkpoint: the source sends it again after a restore
    }
    try (var h = harness()) {
      h.initializeState(state);
      h.open();
      assertThat(h.extractOutputValues()).isEmpty();
      // the committer commits the restored checkpoint's transactions again and reports them
      commit(h, 1, 0);
      assertThat(reported(h)).containsExactly(0L, 1L);
    }
  }
}
