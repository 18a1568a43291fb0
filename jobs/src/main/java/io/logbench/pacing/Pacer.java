package io.logbench.pacing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * The one thread of a JVM (of a class loader: a job's) that wakes the paced readers (the source's
 * {@code DatasetSourceReader}, the replay's {@code PacedReplayReader}) at their due times, created
 * by the first reader that waits and stopped when the last one closes.
 *
 * <p>Why not a {@code ScheduledThreadPoolExecutor} per reader (as before): scheduling a task on
 * one signals its sleeping thread to take the new head of its queue, so every batch cost that
 * thread two wake-ups, the signal and the timer; on a virtual machine a wake-up costs tens of
 * microseconds of CPU on each side. Here the thread sleeps ({@link LockSupport#parkNanos}) until
 * the earliest due time it knows of, and a reader asking for a wake-up unparks it only when that
 * is earlier than the time it sleeps to. It also sleeps to the time each reader will most likely
 * ask for next (the last due time plus the last interval, for a reader that fired and has not
 * asked again yet), so a reader at a steady rate that asks for its next wake-up after this thread
 * went back to sleep is woken at its time without a signal: one wake-up a batch, not two. A
 * guess that was too early costs one timed wake-up, after which the thread sleeps to the real
 * due time; a reader that did not ask by its guessed time is not guessed for again until it fires.
 */
public final class Pacer {

  private static Pacer shared;
  private static int users;

  /** The JVM's pacer; pair each call with one {@link #release}. */
  public static synchronized Pacer acquire() {
    if (shared == null) {
      shared = new Pacer();
    }
    users++;
    return shared;
  }

  /** Gives the pacer back; the last user's release stops its thread. */
  public static synchronized void release() {
    if (--users == 0) {
      shared.stop();
      shared = null;
    }
  }

  /** One reader's wake-up: at most one pending at a time. */
  public static final class Waiter {
    private long dueNanos;
    private CompletableFuture<Void> future;
    private boolean queued;
    /** When this reader will most likely ask for its next wake-up (epoch ns), MAX_VALUE: no guess. */
    private long guessNanos = Long.MAX_VALUE;
    /** Its last wake-up's due time (0: none yet). */
    private long lastDueNanos;
  }

  private final PriorityQueue<Waiter> queue = new PriorityQueue<>(Comparator.comparingLong(w -> w.dueNanos));
  private final List<Waiter> waiters = new ArrayList<>();
  private final Thread thread;
  /** Guarded by this: the epoch ns the thread sleeps to; MIN_VALUE while it is awake. */
  private long parkedUntil = Long.MIN_VALUE;
  private boolean stopped;
  private long wakeUps;

  private Pacer() {
    thread = new Thread(this::run, "logbench-source-pacer");
    thread.setDaemon(true);
    thread.start();
  }

  /** A waiter for one reader, forgotten by {@link #remove}. */
  public synchronized Waiter add() {
    Waiter w = new Waiter();
    waiters.add(w);
    return w;
  }

  /** Forgets {@code w} and its pending wake-up. */
  public synchronized void remove(Waiter w) {
    if (w.queued) {
      queue.remove(w);
      w.queued = false;
    }
    w.future = null;
    waiters.remove(w);
  }

  /**
   * Completes {@code future} at {@code dueNanos} (epoch ns, {@link WallClock}), on this pacer's
   * thread; replaces {@code w}'s pending wake-up, if any.
   */
  public void wakeAt(Waiter w, long dueNanos, CompletableFuture<Void> future) {
    boolean unpark;
    synchronized (this) {
      if (w.queued) {
        queue.remove(w);
      }
      w.dueNanos = dueNanos;
      w.future = future;
      w.queued = true;
      queue.add(w);
      unpark = dueNanos < parkedUntil;
    }
    if (unpark) {
      LockSupport.unpark(thread);
    }
  }

  /** The pacer's thread (for tests). */
  Thread thread() {
    return thread;
  }

  /** Times the thread went to sleep and woke up so far (for tests and benchmarks). */
  synchronized long wakeUps() {
    return wakeUps;
  }

  private synchronized void stop() {
    stopped = true;
    queue.clear();
    LockSupport.unpark(thread);
  }

  private void run() {
    List<CompletableFuture<Void>> due = new ArrayList<>();
    boolean slept = false;
    while (true) {
      long until;
      synchronized (this) {
        if (stopped) {
          return;
        }
        if (slept) {
          wakeUps++;
          slept = false;
        }
        parkedUntil = Long.MIN_VALUE;
        long now = WallClock.epochNanos();
        while (!queue.isEmpty() && queue.peek().dueNanos <= now) {
          Waiter w = queue.poll();
          w.queued = false;
          w.guessNanos = w.lastDueNanos > 0 && w.dueNanos > w.lastDueNanos
              ? w.dueNanos + (w.dueNanos - w.lastDueNanos) : Long.MAX_VALUE;
          w.lastDueNanos = w.dueNanos;
          due.add(w.future);
          w.future = null;
        }
        if (due.isEmpty()) {
          until = queue.isEmpty() ? Long.MAX_VALUE : queue.peek().dueNanos;
          for (Waiter w : waiters) {
            if (!w.queued && w.guessNanos != Long.MAX_VALUE) {
              if (w.guessNanos <= now) {
                w.guessNanos = Long.MAX_VALUE; // it did not ask by then: no more guessing until it fires
              } else {
                until = Math.min(until, w.guessNanos);
              }
            }
          }
          parkedUntil = until;
        } else {
          until = Long.MIN_VALUE;
        }
      }
      if (!due.isEmpty()) {
        // the readers' callbacks run here; then the queue is looked at again before sleeping
        for (CompletableFuture<Void> f : due) {
          f.complete(null);
        }
        due.clear();
        continue;
      }
      if (until == Long.MAX_VALUE) {
        LockSupport.park(this);
      } else {
        long delay = until - WallClock.epochNanos();
        if (delay > 0) {
          LockSupport.parkNanos(this, delay);
        }
      }
      slept = true;
    }
  }
}
