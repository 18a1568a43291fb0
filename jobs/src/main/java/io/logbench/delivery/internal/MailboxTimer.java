package io.logbench.delivery.internal;

import org.apache.flink.api.common.operators.MailboxExecutor;

/**
 * A {@link DeliveryTimer} on a Flink task's own thread: work goes into the task's mailbox (or
 * runs at once when the caller is the task thread), so a batch is encoded and written from the
 * thread that received it and its answer comes back in one hand-off from the I/O thread, instead
 * of two more through a delivery thread of its own.
 *
 * <p>Delays still wait on a {@link ExecutorTimer} (Flink's processing-time timers stop firing
 * while a finishing task waits for its last answers and backoffs), whose thread only moves the
 * task into the mailbox when it is due: the deliverer keeps one answer-timeout task at a time
 * there (for its oldest send), so that thread sleeps while answers come in time.
 */
public final class MailboxTimer implements DeliveryTimer, AutoCloseable {

  private final MailboxExecutor mailbox;
  private final Thread taskThread;
  private final ExecutorTimer delays;

  /**
   * A timer whose work runs on {@code taskThread} through {@code mailbox}; {@code delayThreadName}
   * names the thread that waits for delays.
   */
  public MailboxTimer(MailboxExecutor mailbox, Thread taskThread, String delayThreadName) {
    this.mailbox = mailbox;
    this.taskThread = taskThread;
    this.delays = new ExecutorTimer(delayThreadName);
  }

  @Override
  public void execute(Runnable task) {
    if (Thread.currentThread() == taskThread) {
      task.run();
    } else {
      mailbox.execute(task::run, "logbench delivery");
    }
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    return delays.schedule(() -> mailbox.execute(task::run, "logbench delivery timer"), delayNanos);
  }

  @Override
  public void close() {
    delays.close();
  }
}
