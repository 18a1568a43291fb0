package io.logbench.delivery.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.util.function.ThrowingRunnable;
import org.junit.jupiter.api.Test;

/** {@link MailboxTimer} runs every piece of work on the task thread, through the mailbox. */
class MailboxTimerTest {

  /** A mailbox the test thread drains, as a task thread does. */
  private static final class QueueMailbox implements MailboxExecutor {
    final BlockingQueue<ThrowingRunnable<? extends Exception>> mails = new LinkedBlockingQueue<>();

    @Override
    public void execute(MailOptions options, ThrowingRunnable<? extends Exception> command, String description,
        Object... args) {
      mails.add(command);
    }

    @Override
    public void yield() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean tryYield() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean shouldInterrupt() {
      return false;
    }

    /** Waits up to 10 s for the next mail and runs it on the calling thread. */
    void runNext() throws Exception {
      ThrowingRunnable<? extends Exception> mail = mails.poll(10, TimeUnit.SECONDS);
      assertNotNull(mail, "no mail within 10 s");
      mail.run();
    }
  }

  @Test
  void workFromTheTaskThreadRunsAtOnceWithoutAMail() {
    QueueMailbox mailbox = new QueueMailbox();
    try (MailboxTimer timer = new MailboxTimer(mailbox, Thread.currentThread(), "test-delays")) {
      List<Thread> ran = new ArrayList<>();
      timer.execute(() -> ran.add(Thread.currentThread()));
      assertEquals(List.of(Thread.currentThread()), ran);
      assertTrue(mailbox.mails.isEmpty());
    }
  }

  @Test
  void workFromAnotherThreadWaitsForTheTaskThreadsMailbox() throws Exception {
    QueueMailbox mailbox = new QueueMailbox();
    try (MailboxTimer timer = new MailboxTimer(mailbox, Thread.currentThread(), "test-delays")) {
      List<Thread> ran = new ArrayList<>();
      Thread io = new Thread(() -> timer.execute(() -> ran.add(Thread.currentThread())), "test-io");
      io.start();
      io.join(10_000);
      assertTrue(ran.isEmpty(), "the work ran on the calling thread instead of the task's");
      mailbox.runNext();
      assertEquals(List.of(Thread.currentThread()), ran);
    }
  }

  @Test
  void delaysEndAsMailsAndACancelledOneNeverComes() throws Exception {
    QueueMailbox mailbox = new QueueMailbox();
    try (MailboxTimer timer = new MailboxTimer(mailbox, Thread.currentThread(), "test-delays")) {
      List<String> ran = new ArrayList<>();
      DeliveryTimer.Cancellable early = timer.schedule(() -> ran.add("cancelled"), TimeUnit.MILLISECONDS.toNanos(20));
      timer.schedule(() -> ran.add("due"), TimeUnit.MILLISECONDS.toNanos(50));
      early.cancel();
      // the delay thread fires in due order: once the later task's mail is here, the cancelled
      // one's would have come before it
      mailbox.runNext();
      assertEquals(List.of("due"), ran);
      assertTrue(mailbox.mails.isEmpty());
    }
  }

  @Test
  void aDelayedTaskRunsOnTheTaskThread() throws Exception {
    QueueMailbox mailbox = new QueueMailbox();
    try (MailboxTimer timer = new MailboxTimer(mailbox, Thread.currentThread(), "test-delays")) {
      Thread[] ranOn = new Thread[1];
      timer.schedule(() -> ranOn[0] = Thread.currentThread(), 0);
      mailbox.runNext();
      assertSame(Thread.currentThread(), ranOn[0]);
    }
  }
}
