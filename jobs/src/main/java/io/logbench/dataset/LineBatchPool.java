package io.logbench.dataset;

import java.util.ArrayDeque;

/**
 * Batches that their last reader is done with, kept for the source on the same thread to fill
 * again: a task's source and the backend's delivery run chained on one thread, and a batch
 * filled again there is memory the caches and the page tables already hold, where a new one
 * costs its allocation and, early in a run, a page fault every 4 KB (docs/benchmarks.md,
 * twenty-first round).
 *
 * <p>Only code that knows nothing reads a batch any more gives it here: a batch given back too
 * early would be overwritten while it is read. Batches nobody gives back are left to the
 * collector, as every batch was before. Each thread has its own pool, used by that thread alone;
 * a thread that gives but never takes keeps at most {@link #MAX} batches.
 */
public final class LineBatchPool {

  /** The most batches a thread keeps. */
  public static final int MAX = 16;

  private static final ThreadLocal<ArrayDeque<LineBatch>> FREE = ThreadLocal.withInitial(ArrayDeque::new);

  private LineBatchPool() {}

  /** A batch this thread was given back, most recently given first; null if none. */
  public static LineBatch take() {
    return FREE.get().pollLast();
  }

  /** Keeps {@code batch}, which nothing reads any more, for this thread's next {@link #take}. */
  public static void give(LineBatch batch) {
    ArrayDeque<LineBatch> free = FREE.get();
    if (free.size() < MAX) {
      free.addLast(batch);
    }
  }

  /** How many batches this thread holds. */
  public static int size() {
    return FREE.get().size();
  }
}
