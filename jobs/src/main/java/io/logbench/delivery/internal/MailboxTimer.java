package io.logbench.delivery.internal;

import io.logbench.http.EventLoops;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.operators.MailboxExecutor;

/**
 * A {@link DeliveryTimer} on a Flink task's own thread: work goes into the task's mailbox (or
 * runs at once when the caller is the task thread), so a batch is encoded and written from the
 * thread that received it and its answer comes back in one hand-off from the I/O thread, instead
 * of two more through a delivery thread of its own.
 *
 * <p>Answers ({@link #executeLater}) that come in on an HTTP I/O thread ({@link EventLoops}) wait
 * in a queue of their own for the task thread's next wake-up, which at a steady rate comes within
 * milliseconds for the source's next batch: every piece of delivery work on the task thread first runs the answers
 * queued so far, oldest first. So an answer costs the task thread no wake-up of its own (on a
 * virtual machine, tens of microseconds of CPU on each side). An answer waits at most {@code
 * answersWithin}: a check on the I/O thread's own timers (Netty's scheduled tasks, which wake that
 * thread at most once per check and need no signal from another thread) mails the queue to the
 * task when its oldest answer is that old, and goes on checking while answers wait. When the
 * deliverer says it may be waiting for an answer (its unreported batches fill the operator's
 * capacity), and for answers from threads that are not Netty's, the answer is mailed at once.
 *
 * <p>Delays still wait on a {@link ExecutorTimer} (Flink's processing-time timers stop firing
 * while a finishing task waits for its last answers and backoffs), whose thread only moves the
 * task into the mailbox when it is due: the deliverer keeps one answer-timeout task at a time
 * there (for its oldest send), so that thread sleeps while answers come in time.
 */
public final class MailboxTimer implements DeliveryTimer, AutoCloseable {

  /** How long an answer waits at most for the task thread's next wake-up, by default. */
  public static final long ANSWERS_WITHIN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final MailboxExecutor mailbox;
  private final Thread taskThread;
  private final ExecutorTimer delays;
  private final long answersWithinNanos;
  private final ConcurrentLinkedQueue<Queued> answers = new ConcurrentLinkedQueue<>();
  /** Whether a check of the queue's oldest answer is scheduled on an I/O thread. */
  private final AtomicBoolean checkScheduled = new AtomicBoolean();
  private final Runnable drainMail = this::drain;
  /** Set by {@link #close}: the task is done, and a check still scheduled stops. */
  private volatile boolean closed;

  /** An answer and when it was queued ({@link System#nanoTime}). */
  private record Queued(Runnable answer, long queuedNanos) {}

  /**
   * A timer whose work runs on {@code taskThread} through {@code mailbox}; {@code delayThreadName}
   * names the thread that waits for delays; answers wait at most {@link #ANSWERS_WITHIN_NANOS}.
   */
  public MailboxTimer(MailboxExecutor mailbox, Thread taskThread, String delayThreadName) {
    this(mailbox, taskThread, delayThreadName, ANSWERS_WITHIN_NANOS);
  }

  /** As above, answers waiting at most {@code answersWithinNanos} for the task thread. */
  public MailboxTimer(MailboxExecutor mailbox, Thread taskThread, String delayThreadName, long answersWithinNanos) {
    this.mailbox = mailbox;
    this.taskThread = taskThread;
    this.delays = new ExecutorTimer(delayThreadName);
    this.answersWithinNanos = answersWithinNanos;
  }

  @Override
  public void execute(Runnable task) {
    if (Thread.currentThread() == taskThread) {
      drain();
      task.run();
    } else {
      mailbox.execute(() -> {
        drain();
        task.run();
      }, "logbench delivery");
    }
  }

  @Override
  public void executeLater(Runnable task, BooleanSupplier urgent) {
    if (Thread.currentThread() == taskThread) {
      drain();
      task.run();
      return;
    }
    EventExecutor io = EventLoops.current();
    if (io == null) {
      execute(task); // no timers of this thread's own to check the queue with
      return;
    }
    answers.offer(new Queued(task, System.nanoTime()));
    // after the offer: the deliverer counts a batch in flight before it drains, so either its
    // drain sees this answer or this sees the count that makes it urgent
    if (urgent.getAsBoolean()) {
      mailbox.execute(drainMail::run, "logbench delivery answer");
    } else if (checkScheduled.compareAndSet(false, true)) {
      io.schedule(() -> check(io), answersWithinNanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * On an I/O thread: mails the queue to the task once its oldest answer waited long enough, and
   * checks again while answers wait.
   */
  private void check(EventExecutor io) {
    if (closed) {
      return;
    }
    Queued oldest = answers.peek();
    if (oldest == null) {
      checkScheduled.set(false);
      // an answer queued while the flag was still set scheduled no check: take it up
      if (answers.isEmpty() || !checkScheduled.compareAndSet(false, true)) {
        return;
      }
      oldest = answers.peek();
      if (oldest == null) {
        checkScheduled.set(false);
        return;
      }
    }
    long waited = System.nanoTime() - oldest.queuedNanos();
    long next = answersWithinNanos;
    if (waited >= answersWithinNanos) {
      try {
        mailbox.execute(drainMail::run, "logbench delivery answers");
      } catch (RejectedExecutionException | IllegalStateException e) {
        checkScheduled.set(false);
        return; // the task closed its mailbox: it waits for no answer any more
      }
    } else {
      next = answersWithinNanos - waited;
    }
    try {
      io.schedule(() -> check(io), next, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      checkScheduled.set(false); // the I/O threads are shutting down
    }
  }

  /** On the task thread: runs the answers queued so far, oldest first. */
  private void drain() {
    Queued q;
    while ((q = answers.poll()) != null) {
      q.answer().run();
    }
  }

  /** Answers queued for the task thread (for tests). */
  int queuedAnswers() {
    return answers.size();
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    return delays.schedule(() -> mailbox.execute(() -> {
      drain();
      task.run();
    }, "logbench delivery timer"), delayNanos);
  }

  @Override
  public void close() {
    closed = true;
    answers.clear();
    delays.close();
  }
}
