package io.logbench.delivery.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineBatchPool;
import io.logbench.sink.BatchOutcome;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;

/**
 * Gives a delivered batch back to its thread's {@link LineBatchPool} once nothing can read it
 * again, so the source chained before the delivery fills it again. A batch qualifies when:
 *
 * <ul>
 *   <li>every line was taken at the first send ({@code ACKED}, nothing resent): every send of it
 *       was answered, so no sender holds it for a late answer, a held-back push or a retry;
 *   <li>the async operator emitted its outcome ({@link #emitted}), which it does after taking the
 *       batch out of its queue: the queue is what a checkpoint snapshots;
 *   <li>no checkpoint whose snapshot was taken is still open: Flink's copy of operator state for
 *       a snapshot's asynchronous part is the batch itself (batches are shared, not copied,
 *       between chained operators), so a batch released while one is open is held until that
 *       checkpoint completes or is aborted, at most {@link #MAX_HELD} of them (the rest are left
 *       to the collector, as is every batch that does not qualify).
 * </ul>
 *
 * <p>Used on the task thread alone, as the operator's outcomes and checkpoint calls are.
 */
public final class BatchRecycler {

  /** The most batches held for an open checkpoint: as many as the pool keeps. */
  static final int MAX_HELD = LineBatchPool.MAX;

  private final IdentityHashMap<BatchOutcome, LineBatch> awaitingEmission = new IdentityHashMap<>();
  private final List<LineBatch> held = new ArrayList<>();
  /** The newest checkpoint whose snapshot was taken and that has not ended; -1 if none. */
  private long openCheckpoint = -1;

  /** {@code batch}'s delivery ended with {@code outcome}, which the operator emits next. */
  public void delivered(BatchOutcome outcome, LineBatch batch) {
    if (outcome.status() == BatchOutcome.Status.ACKED && outcome.resends().isEmpty()) {
      awaitingEmission.put(outcome, batch);
    }
  }

  /** The operator emitted {@code outcome}: its batch has left the operator's queue. */
  public void emitted(BatchOutcome outcome) {
    LineBatch batch = awaitingEmission.remove(outcome);
    if (batch == null) {
      return;
    }
    if (openCheckpoint < 0) {
      LineBatchPool.give(batch);
    } else if (held.size() < MAX_HELD) {
      held.add(batch);
    }
  }

  /** The operator's snapshot for {@code checkpointId} was taken. */
  public void snapshotTaken(long checkpointId) {
    openCheckpoint = Math.max(openCheckpoint, checkpointId);
  }

  /** Checkpoint {@code checkpointId} completed or was aborted: so did every earlier one here. */
  public void checkpointEnded(long checkpointId) {
    if (openCheckpoint >= 0 && checkpointId >= openCheckpoint) {
      openCheckpoint = -1;
      for (LineBatch b : held) {
        LineBatchPool.give(b);
      }
      held.clear();
    }
  }

  /** Batches whose outcome is not emitted yet, and batches held for an open checkpoint. */
  int awaiting() {
    return awaitingEmission.size();
  }

  int held() {
    return held.size();
  }
}
