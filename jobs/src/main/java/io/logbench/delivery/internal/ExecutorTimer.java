package io.logbench.delivery.internal;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** A {@link DeliveryTimer} on a single-threaded {@link ScheduledExecutorService}. */
public final class ExecutorTimer implements DeliveryTimer, AutoCloseable {

  private final ScheduledExecutorService executor;

  public ExecutorTimer(String threadName) {
    ScheduledThreadPoolExecutor e =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    // a cancelled task leaves the queue at once instead of waking the thread when it would have
    // been due
    e.setRemoveOnCancelPolicy(true);
    this.executor = e;
  }

  @Override
  public void execute(Runnable task) {
    executor.execute(task);
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    ScheduledFuture<?> f = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
