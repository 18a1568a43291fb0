package io.logbench.delivery.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.logbench.http.EventLoops;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.util.function.ThrowingRunnable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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

  /** The JVM's HTTP I/O threads live through each test: their timers check the held answers. */
  @BeforeEach
  void acquireIoThreads() {
    EventLoops.acquire();
  }

  @AfterEach
  void releaseIoThreads() {
    EventLoops.release();
  }

  /** Runs {@code r} on one of the JVM's HTTP I/O threads, as an answer comes in, and waits for it. */
  private static void onIoThread(Runnable r) throws Exception {
    EventLoopGroup group = EventLoops.acquire();
    try {
      group.next().submit(r).get(10, TimeUnit.SECONDS);
    } finally {
      EventLoops.release();
    }
  }

  @Test
  void anAnswerWaitsForTheTaskThreadsNextWorkAndRunsBeforeIt() throws Exception {
    QueueMailbox mailbox = new QueueMailbox();
    long within = TimeUnit.MILLISECONDS.toNanos(300);
    try (MailboxTimer timer = new MailboxTimer(mailbox, Thread.currentThread(), "test-delays", within)) {
      List<String> ran = new ArrayList<>();
      onIoThread(() -> {
        timer.executeLater(() -> ran.add("answer 1"), () -> false);
        timer.executeLater(() -> ran.add("answer 2"), () -> false);
      });
      assertTrue(ran.isEmpty());
      assertTrue(mailbox.mails.isEmpty(), "a held answer was mailed at once");
      assertEquals(2, timer.queuedAnswers());
      timer.execute(() -> ran.add("next batch"));
      assertEquals(List.of("answer 1", "answer 2", "next batch"), ran);
      assertEquals(0, timer.queuedAnswers());
      // the I/O thread's check, 300 ms after the first answer, finds the queue empty: no mail
      assertNull(mailbox.mails.poll(800, TimeUnit.MILLISECONDS), "a drain came for an empty queue");
    }
  }

  @Test
  void anAnswerNoWorkFollowsComesByMailWithinItsTime() throws Exception {
    QueueMailbox mailbox = new QueueMailbox();
    long within = TimeUnit.MILLISECONDS.toNanos(30);
    try (MailboxTimer timer = new MailboxTimer(mailbox, Thread.currentThread(), "test-delays", within)) {
      List<Thread> ran = new ArrayList<>();
      long[] queuedAt = new long[1];
      onIoThread(() -> {
        queuedAt[0] = System.nanoTime();
        timer.executeLater(() -> ran.add(Thread.currentThread()), () -> false);
      });
      mailbox.runNext();
      long waited = System.nanoTime() - queuedAt[0];
      assertEquals(List.of(Thread.currentThread()), ran);
      assertTrue(waited >= within, "the answer's mail came after " + waited + " ns, before its time");
    }
  }

  @Test
  void anUrgentAnswerIsMailedAtOnce() throws Exception {
    QueueMailbox mailbox = new QueueMailbox();
    // the check would mail the queue in an hour: a mail within the 10 s of runNext is the urgent one
    try (MailboxTimer timer = new MailboxTimer(mailbox, Thread.currentThread(), "test-delays",
        TimeUnit.HOURS.toNanos(1))) {
      List<String> ran = new ArrayList<>();
      onIoThread(() -> {
        timer.executeLater(() -> ran.add("held"), () -> false);
        timer.executeLater(() -> ran.add("urgent"), () -> true);
      });
      mailbox.runNext();
      assertEquals(List.of("held", "urgent"), ran);
    }
  }

  @Test
  void anAnswerFromAThreadThatIsNotAnIoThreadIsMailedAtOnce() throws Exception {
    QueueMailbox mailbox = new QueueMailbox();
    try (MailboxTimer timer = new MailboxTimer(mailbox, Thread.currentThread(), "test-delays",
        TimeUnit.HOURS.toNanos(1))) {
      List<String> ran = new ArrayList<>();
      Thread other = new Thread(() -> timer.executeLater(() -> ran.add("answer"), () -> false), "test-kafka");
      other.start();
      other.join(10_000);
      assertEquals(0, timer.queuedAnswers());
      mailbox.runNext();
      assertEquals(List.of("answer"), ran);
    }
  }

  @Test
  void aClosedTimerMailsNoAnswerItHeld() throws Exception {
    QueueMailbox mailbox = new QueueMailbox();
    MailboxTimer timer = new MailboxTimer(mailbox, Thread.currentThread(), "test-delays",
        TimeUnit.MILLISECONDS.toNanos(30));
    onIoThread(() -> timer.executeLater(() -> { }, () -> false));
    timer.close();
    assertEquals(0, timer.queuedAnswers());
    // the check due 30 ms after the answer finds the timer closed: no mail to a finished task
    assertNull(mailbox.mails.poll(300, TimeUnit.MILLISECONDS), "a closed timer mailed an answer");
  }

  @Test
  void anAnswerFromTheTaskThreadRunsAtOnce() {
    QueueMailbox mailbox = new QueueMailbox();
    try (MailboxTimer timer = new MailboxTimer(mailbox, Thread.currentThread(), "test-delays")) {
      List<String> ran = new ArrayList<>();
      timer.executeLater(() -> ran.add("answer"), () -> false);
      assertEquals(List.of("answer"), ran);
      assertTrue(mailbox.mails.isEmpty());
    }
  }
}
