package io.logbench.delivery.internal;

/**
 * The one thread a delivery runs on, and its timers: every step of every batch's delivery (sends,
 * answers, backoff, timeouts) runs here, one at a time, so no delivery state is touched from an
 * HTTP callback thread. Tests use a manual implementation with virtual time.
 */
public interface DeliveryTimer {

  /** Runs {@code task} on the delivery thread, soon. */
  void execute(Runnable task);

  /**
   * Runs {@code task}, an answer that came in on another thread, on the delivery thread: soon,
   * but a timer whose thread wakes up anyway may hold it until then, a few milliseconds, unless
   * {@code urgent} says the delivery thread may be waiting for it (asked after the task is
   * queued). By default as {@link #execute}.
   */
  default void executeLater(Runnable task, java.util.function.BooleanSupplier urgent) {
    execute(task);
  }

  /** Runs {@code task} on the delivery thread after {@code delayNanos}. */
  Cancellable schedule(Runnable task, long delayNanos);

  /** A scheduled task that may be called off. */
  interface Cancellable {
    void cancel();
  }
}
