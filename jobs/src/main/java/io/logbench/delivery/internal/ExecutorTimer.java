package io.logbench.delivery.internal;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** A {@link DeliveryTimer} on a single-threaded {@link ScheduledExecutorService}. */
public final class ExecutorTimer implements DeliveryTimer, AutoCloseable {

  private final ScheduledExecutorService executor;

  public ExecutorTimer(String threadName) {
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
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
