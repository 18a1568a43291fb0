package io.logbench.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The shared pacer: wake-ups at their due times, one pending per reader, one wake-up a batch. */
class PacerTest {

  private Pacer pacer;

  @BeforeEach
  void acquire() {
    pacer = Pacer.acquire();
  }

  @AfterEach
  void release() {
    Pacer.release();
  }

  @Test
  void completesEachFutureNoEarlierThanItsDueTimeEarliestFirst() throws Exception {
    Pacer.Waiter a = pacer.add();
    Pacer.Waiter b = pacer.add();
    List<String> order = new ArrayList<>();
    long now = WallClock.epochNanos();
    long dueA = now + 60_000_000L;
    long dueB = now + 20_000_000L;
    CompletableFuture<Void> fa = new CompletableFuture<>();
    CompletableFuture<Void> fb = new CompletableFuture<>();
    long[] firedAt = new long[2];
    CompletableFuture<Void> ranA = fa.thenRun(() -> {
      firedAt[0] = WallClock.epochNanos();
      synchronized (order) {
        order.add("a");
      }
    });
    CompletableFuture<Void> ranB = fb.thenRun(() -> {
      firedAt[1] = WallClock.epochNanos();
      synchronized (order) {
        order.add("b");
      }
    });
    pacer.wakeAt(a, dueA, fa);
    pacer.wakeAt(b, dueB, fb);
    CompletableFuture.allOf(ranA, ranB).get(10, TimeUnit.SECONDS);
    assertThat(order).containsExactly("b", "a");
    assertThat(firedAt[0]).isGreaterThanOrEqualTo(dueA);
    assertThat(firedAt[1]).isGreaterThanOrEqualTo(dueB);
    pacer.remove(a);
    pacer.remove(b);
  }

  @Test
  void aNewWakeUpReplacesTheReadersPendingOne() throws Exception {
    Pacer.Waiter w = pacer.add();
    CompletableFuture<Void> later = new CompletableFuture<>();
    CompletableFuture<Void> sooner = new CompletableFuture<>();
    pacer.wakeAt(w, WallClock.epochNanos() + TimeUnit.MINUTES.toNanos(10), later);
    pacer.wakeAt(w, WallClock.epochNanos() + 10_000_000L, sooner);
    sooner.get(10, TimeUnit.SECONDS);
    // the first wake-up was dropped: a second one after the replacing one fires, and `later` stays pending
    CompletableFuture<Void> next = new CompletableFuture<>();
    pacer.wakeAt(w, WallClock.epochNanos() + 10_000_000L, next);
    next.get(10, TimeUnit.SECONDS);
    assertThat(later).isNotDone();
    pacer.remove(w);
  }

  @Test
  void aReaderAtASteadyRateCostsAboutOneWakeUpABatchNotTwo() throws Exception {
    Pacer.Waiter w = pacer.add();
    long interval = 5_000_000L;
    int batches = 100;
    long wokeBefore = pacer.wakeUps();
    long due = WallClock.epochNanos() + interval;
    for (int i = 0; i < batches; i++) {
      CompletableFuture<Void> f = new CompletableFuture<>();
      pacer.wakeAt(w, due, f);
      // asked from this thread once the last one fired, as a task asks after emitting its batch
      f.get(10, TimeUnit.SECONDS);
      assertThat(WallClock.epochNanos()).isGreaterThanOrEqualTo(due);
      due += interval;
    }
    long woke = pacer.wakeUps() - wokeBefore;
    // a signal for each ask and a timer for each due time would be 2 a batch; the guess of the next
    // due time leaves the timer alone, but for the first batches (no interval known yet) and a
    // rare early return of parkNanos
    assertThat(woke).isGreaterThanOrEqualTo(batches).isLessThan(batches * 3 / 2);
    pacer.remove(w);
  }

  @Test
  void theLastReleaseStopsTheThreadAndTheNextAcquireStartsANewOne() throws Exception {
    Pacer first = Pacer.acquire(); // a second user: the thread stays after one release
    assertThat(first).isSameAs(pacer);
    Pacer.release();
    assertThat(pacer.thread().isAlive()).isTrue();
    Pacer.release();
    pacer.thread().join(10_000);
    assertThat(pacer.thread().isAlive()).isFalse();
    pacer = Pacer.acquire(); // for @AfterEach
    assertThat(pacer.thread().isAlive()).isTrue();
    assertThat(pacer).isNotSameAs(first);
  }
}
