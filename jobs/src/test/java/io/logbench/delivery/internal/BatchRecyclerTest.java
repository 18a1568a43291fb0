package io.logbench.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineBatchPool;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchOutcome.Status;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BatchRecyclerTest {

  private final BatchRecycler recycler = new BatchRecycler();

  @AfterEach
  void emptyThisThreadsPool() {
    while (LineBatchPool.take() != null) {
      // dropped
    }
  }

  private static BatchOutcome outcome(long id, Status status, List<BatchOutcome.Resend> resends) {
    int acked = status == Status.ACKED ? 10 : status == Status.PARTIAL ? 4 : 0;
    return new BatchOutcome("b", id, id * 10, 10, status, 204, 1 + resends.size(), 0, 0, 0,
        List.of(new BatchOutcome.WindowTally(0, 10, acked, acked == 10 ? Map.of() : Map.of("5xx", 10 - acked))),
        resends);
  }

  private static BatchOutcome acked(long id) {
    return outcome(id, Status.ACKED, List.of());
  }

  /** A batch taken whole at the first send goes to the pool when its outcome is emitted, not before. */
  @Test
  void aBatchTakenAtOnceIsGivenBackWhenItsOutcomeIsEmitted() {
    LineBatch batch = new LineBatch();
    BatchOutcome o = acked(1);
    recycler.delivered(o, batch);
    assertThat(LineBatchPool.size()).isZero();
    recycler.emitted(acked(1)); // an equal outcome is not this one
    assertThat(LineBatchPool.size()).isZero();
    recycler.emitted(o);
    assertThat(LineBatchPool.take()).isSameAs(batch);
    recycler.emitted(o); // once only
    assertThat(LineBatchPool.size()).isZero();
    assertThat(recycler.awaiting()).isZero();
  }

  /**
   * A batch resent (a sender may still hold it for a late answer) or not taken whole stays with
   * the collector.
   */
  @Test
  void aBatchResentOrNotTakenWholeIsNotGivenBack() {
    List<BatchOutcome> kept = List.of(
        outcome(1, Status.ACKED, List.of(new BatchOutcome.Resend("timeout", 1, 10))),
        outcome(2, Status.PARTIAL, List.of()),
        outcome(3, Status.FAILED, List.of()),
        outcome(4, Status.ABORTED, List.of()));
    for (BatchOutcome o : kept) {
      recycler.delivered(o, new LineBatch());
      recycler.emitted(o);
    }
    assertThat(LineBatchPool.size()).isZero();
    assertThat(recycler.awaiting()).isZero();
  }

  /**
   * While a checkpoint whose snapshot was taken is open, batches are held (its asynchronous part
   * may still write them), up to MAX_HELD; an earlier checkpoint ending releases nothing, this one
   * or a later one ending releases them all.
   */
  @Test
  void batchesReleasedWhileACheckpointIsOpenWaitForItsEnd() {
    recycler.snapshotTaken(7);
    LineBatch first = new LineBatch();
    BatchOutcome o = acked(1);
    recycler.delivered(o, first);
    recycler.emitted(o);
    for (int i = 0; i < BatchRecycler.MAX_HELD + 5; i++) {
      BatchOutcome more = acked(2 + i);
      recycler.delivered(more, new LineBatch());
      recycler.emitted(more);
    }
    assertThat(LineBatchPool.size()).isZero();
    assertThat(recycler.held()).isEqualTo(BatchRecycler.MAX_HELD);
    recycler.checkpointEnded(6);
    assertThat(LineBatchPool.size()).isZero();
    recycler.checkpointEnded(7);
    assertThat(recycler.held()).isZero();
    assertThat(LineBatchPool.size()).isEqualTo(Math.min(BatchRecycler.MAX_HELD, LineBatchPool.MAX));

    emptyThisThreadsPool();
    recycler.snapshotTaken(8);
    recycler.snapshotTaken(9);
    BatchOutcome later = acked(100);
    recycler.delivered(later, new LineBatch());
    recycler.emitted(later);
    recycler.checkpointEnded(8);
    assertThat(LineBatchPool.size()).as("checkpoint 9 is still open").isZero();
    recycler.checkpointEnded(10); // a later one completed: 9 ended before it
    assertThat(LineBatchPool.size()).isEqualTo(1);
  }

  /** A batch emitted after its checkpoint ended goes straight to the pool. */
  @Test
  void afterTheCheckpointEndsBatchesGoStraightBack() {
    recycler.snapshotTaken(3);
    recycler.checkpointEnded(3);
    BatchOutcome o = acked(1);
    LineBatch batch = new LineBatch();
    recycler.delivered(o, batch);
    recycler.emitted(o);
    assertThat(LineBatchPool.take()).isSameAs(batch);
  }
}
