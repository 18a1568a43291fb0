package io.logbench.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What a delivery task checkpoints of its in-flight batches, and what it records after a restore. */
class InFlightBatchesTest {

  @Test
  void theSnapshotHoldsTheUncompletedAndTheLastCapacityCompleted() {
    InFlightBatches t = new InFlightBatches(2);
    for (long id = 0; id < 6; id++) {
      assertThat(t.handed(id, id * 100, 100)).isFalse(); // no restore: nothing to record
    }
    t.completed(1);
    t.completed(0);
    t.completed(4);
    // 2, 3 and 5 in flight; 0 and 4 completed last, maybe not emitted yet; 1 surely emitted
    assertThat(t.snapshot()).containsExactlyInAnyOrder(2L, 3L, 5L, 0L, 4L);
    t.completed(9); // never handed: ignored
    assertThat(t.snapshot()).containsExactlyInAnyOrder(2L, 3L, 5L, 0L, 4L);
    assertThat(t.recordDue()).isFalse();
  }

  @Test
  void afterARestoreTheBatchesHandedAgainFromTheCheckpointAreRecordedOnceTheFirstNewOneComes() {
    InFlightBatches t = new InFlightBatches(4);
    // union state of two subtasks: this one gets 7 and 9 back, the other 8
    t.restore(List.of(7L, 8L, 9L, 3L));
    assertThat(t.recordDue()).isTrue();
    assertThat(t.handed(7, 700, 100)).isFalse();
    assertThat(t.handed(9, 900, 50)).isFalse();
    assertThat(t.handed(12, 1_200, 100)).as("a new batch: the record is due now").isTrue();
    assertThat(t.takeReplayed())
        .containsExactly(ReplayedRange.batch(7, 700, 100), ReplayedRange.batch(9, 900, 50));
    assertThat(t.recordDue()).isFalse();
    assertThat(t.handed(13, 1_300, 100)).isFalse();
    assertThat(t.takeReplayed()).isEmpty();
    assertThat(t.snapshot()).containsExactlyInAnyOrder(7L, 9L, 12L, 13L);
  }
}
