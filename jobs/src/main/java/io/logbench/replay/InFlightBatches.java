package io.logbench.replay;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which batches a delivery task may hold in its asynchronous operator's checkpoint, and, after a
 * restore, which of the batches handed to it again are those: the restored in-flight batches, sent
 * once more although the failed attempt had sent them.
 *
 * <p>Flink's asynchronous operator keeps every batch it was handed and has not yet emitted the
 * result of in its checkpoint and hands them to the function again after a restore. The function
 * does not see emissions, only its own completions, and the operator emits completed results in
 * the order they were completed, at most {@code capacity} waiting; so {@link #snapshot} returns the
 * batches not completed plus the last {@code capacity} completed, a superset of what the operator
 * checkpoints. A batch handed again after a restore that is in the restored set is a restored
 * in-flight batch (the source never emits again a batch below its restored position, and every
 * batch of the set was handed before the checkpoint, so below it). Thread-safe: batches are handed
 * on the task thread and completed on the delivery thread; the sets are small (in flight plus
 * {@code capacity}).
 */
public final class InFlightBatches {

  private final Set<Long> handed = new HashSet<>();
  private final long[] completed;
  private int completedCount;
  private int completedNext;
  private Set<Long> restored = Set.of();
  private final List<ReplayedRange> replayed = new ArrayList<>();
  private boolean recordDue;

  /** @param capacity the operator's capacity (requests in flight per task), at least 1 */
  public InFlightBatches(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("The capacity must be at least 1, not " + capacity + ".");
    }
    this.completed = new long[capacity];
  }

  /** The ids a restored checkpoint held (every subtask's); a record of them is then due. */
  public synchronized void restore(Iterable<Long> ids) {
    Set<Long> s = new HashSet<>();
    ids.forEach(s::add);
    restored = s;
    recordDue = true;
  }

  /**
   * Notes a batch handed to the task; true when a restore record is due and this batch is a new
   * one, i.e. every restored in-flight batch has been handed again (the operator hands them all
   * before any new input), so the record can be written now.
   */
  public synchronized boolean handed(long batchId, long firstSeq, int lines) {
    handed.add(batchId);
    if (!recordDue) {
      return false;
    }
    if (restored.contains(batchId)) {
      replayed.add(ReplayedRange.batch(batchId, firstSeq, lines));
      return false;
    }
    return true;
  }

  /** Notes that the task completed batch {@code batchId}'s result. */
  public synchronized void completed(long batchId) {
    if (handed.remove(batchId)) {
      completed[completedNext] = batchId;
      completedNext = (completedNext + 1) % completed.length;
      completedCount = Math.min(completedCount + 1, completed.length);
    }
  }

  /** The ids to checkpoint: not completed, or among the last {@code capacity} completed. */
  public synchronized List<Long> snapshot() {
    List<Long> out = new ArrayList<>(handed.size() + completedCount);
    out.addAll(handed);
    for (int k = 0; k < completedCount; k++) {
      out.add(completed[k]);
    }
    return out;
  }

  /** Whether a restore record is still to be written. */
  public synchronized boolean recordDue() {
    return recordDue;
  }

  /** The restored in-flight batches handed again; the record is no longer due afterwards. */
  public synchronized List<ReplayedRange> takeReplayed() {
    recordDue = false;
    restored = Set.of();
    List<ReplayedRange> out = List.copyOf(replayed);
    replayed.clear();
    return out;
  }
}
