package io.logbench.delivery.internal;

import static io.logbench.delivery.internal.ScriptedSender.accept;
import static io.logbench.delivery.internal.ScriptedSender.fatal;
import static io.logbench.delivery.internal.ScriptedSender.io;
import static io.logbench.delivery.internal.ScriptedSender.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome.WindowTally;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.DeliverySettings.Mode;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.SendResult;
import io.logbench.sink.WindowGrid;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The delivery modes against a scripted fake backend, in virtual time. */
class DelivererTest {

  private static final long START = 1_700_000_000_000_000_000L;
  private static final long SECOND = 1_000_000_000L;
  private static final int LINES = 10;

  private final ManualTimer timer = new ManualTimer(START);
  private final ScriptedSender sender = new ScriptedSender(timer);
  private final List<BatchOutcome> outcomes = new ArrayList<>();
  private final List<Throwable> failures = new ArrayList<>();

  /** Lines 0-5 in the window at 0, lines 6-9 in the window at 60 s; seqs from 1000 + 10 * id. */
  static LineBatch batch(long id, long scheduledNanos) {
    LineBatch b = new LineBatch();
    b.reset(id, 1000 + id * LINES);
    for (int k = 0; k < LINES; k++) {
      byte[] line = ("line " + (1000 + id * LINES + k)).getBytes(StandardCharsets.UTF_8);
      b.append(line, 0, line.length, k < 6 ? 59_000 + k : 60_000 + k, k % 3);
    }
    b.setScheduledNanos(scheduledNanos);
    return b;
  }

  private Deliverer deliverer(DeliverySettings settings) {
    return deliverer(settings, null);
  }

  private Deliverer deliverer(DeliverySettings settings, Duration answerTimeout) {
    return Deliverer.builder()
        .answerTimeout(answerTimeout)
        .backend("fake", 0)
        .settings(settings)
        .sender(sender)
        .grid(new WindowGrid(0, 60_000))
        .timer(timer)
        .clock(timer::now)
        .random(new SplittableRandom(7))
        .build();
  }

  private static DeliverySettings atLeastOnce() {
    return DeliverySettings.defaults();
  }

  private static DeliverySettings loadTest() {
    return DeliverySettings.defaults().withMode(Mode.LOAD_TEST);
  }

  private void deliver(Deliverer d, LineBatch b) {
    d.deliver(b, outcomes::add, failures::add);
  }

  private BatchOutcome only() {
    assertThat(failures).isEmpty();
    assertThat(outcomes).hasSize(1);
    return outcomes.get(0);
  }

  @Test
  void acceptedBatchIsAckedWithPerWindowTallies() {
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batch(3, START));
    timer.advance(5_000_000);
    BatchOutcome o = only();
    assertThat(o.status()).isEqualTo(Status.ACKED);
    assertThat(o.backend()).isEqualTo("fake");
    assertThat(o.batchId()).isEqualTo(3);
    assertThat(o.firstSeq()).isEqualTo(1030);
    assertThat(o.attempts()).isEqualTo(1);
    assertThat(o.httpStatus()).isEqualTo(204);
    assertThat(o.windows()).containsExactly(
        new WindowTally(0, 6, 6, Map.of()), new WindowTally(60_000, 4, 4, Map.of()));
    assertThat(d.stats().linesAcked.getCount()).isEqualTo(LINES);
    assertThat(d.stats().linesSent.getCount()).isEqualTo(LINES);
  }

  /**
   * A batch whose lines all fall in one window has one tally; one whose first and last lines share
   * a window but a line between them does not (lines of streams out of time order) has the others
   * too, in window order.
   */
  @Test
  void anAckedBatchTalliesEveryWindowItsLinesFallIn() {
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batchAt(4, 120_000, 120_001, 179_999));
    deliver(d, batchAt(5, 180_000, 119_999, 240_001, 180_002));
    timer.advance(5_000_000);
    assertThat(failures).isEmpty();
    assertThat(outcomes).hasSize(2);
    assertThat(outcomes.get(0).status()).isEqualTo(Status.ACKED);
    assertThat(outcomes.get(0).windows()).containsExactly(new WindowTally(120_000, 3, 3, Map.of()));
    assertThat(outcomes.get(1).status()).isEqualTo(Status.ACKED);
    assertThat(outcomes.get(1).windows()).containsExactly(new WindowTally(60_000, 1, 1, Map.of()),
        new WindowTally(180_000, 2, 2, Map.of()), new WindowTally(240_000, 1, 1, Map.of()));
  }

  /** A batch {@code id} with one line at each of {@code millis}. */
  private static LineBatch batchAt(long id, long... millis) {
    LineBatch b = new LineBatch();
    b.reset(id, 1000 + id * LINES);
    for (int k = 0; k < millis.length; k++) {
      byte[] line = ("line " + k).getBytes(StandardCharsets.UTF_8);
      b.append(line, 0, line.length, millis[k], 0);
    }
    b.setScheduledNanos(START);
    return b;
  }

  @Test
  void latencyIsMeasuredFromTheScheduledTimeAndServiceTimeFromTheLastSend() {
    sender.then(status(503)).thenAfter(40_000_000, accept());
    Deliverer d = deliverer(atLeastOnce());
    // the batch was due 2 s before it reached the delivery (the source fell behind)
    timer.advance(2 * SECOND);
    deliver(d, batch(0, START));
    timer.runAll(60 * SECOND);
    BatchOutcome o = only();
    assertThat(o.attempts()).isEqualTo(2);
    assertThat(o.serviceNanos()).isEqualTo(40_000_000);
    long lastSend = sender.sent.get(1).atNanos();
    assertThat(o.latencyNanos()).isEqualTo(lastSend + 40_000_000 - START);
    assertThat(o.latencyNanos()).isGreaterThan(2 * SECOND);
  }

  @Test
  void anAnswerHeldForTheDeliveryThreadIsTimedWhenItCameIn() {
    sender.thenAfter(40_000_000, accept());
    timer.holdAnswers(true);
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batch(0, START));
    // the answer came 40 ms after the send and waited 60 ms more for the delivery thread
    timer.advance(100_000_000);
    assertThat(outcomes).isEmpty();
    assertThat(timer.releaseAnswers()).isEqualTo(1);
    timer.runDue();
    BatchOutcome o = only();
    assertThat(o.serviceNanos()).isEqualTo(40_000_000);
    assertThat(o.latencyNanos()).isEqualTo(40_000_000);
  }

  @Test
  void answersAreUrgentOnceTheBatchesNotYetReportedFillInFlight() {
    DeliverySettings settings = new DeliverySettings(Mode.AT_LEAST_ONCE, 3, Duration.ofSeconds(10),
        DeliverySettings.defaults().retry(), DeliverySettings.defaults().thresholds());
    sender.thenAfter(1_000_000, accept());
    timer.holdAnswers(true);
    Deliverer d = deliverer(settings);
    deliver(d, batch(0, START));
    deliver(d, batch(1, START));
    timer.advance(5_000_000);
    // two of three: the async operator would take a next batch, so the answers may wait
    assertThat(outcomes).isEmpty();
    deliver(d, batch(2, START));
    timer.advance(5_000_000);
    // three of three: the operator waits for room, so the third answer came at once
    assertThat(outcomes).extracting(BatchOutcome::batchId).containsExactly(2L);
    assertThat(timer.releaseAnswers()).isEqualTo(2);
    timer.runDue();
    assertThat(outcomes).extracting(BatchOutcome::batchId).containsExactlyInAnyOrder(0L, 1L, 2L);
  }

  @Test
  void atLeastOnceResendsAfter429() {
    sender.then(status(429)).then(accept());
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batch(0, START));
    timer.runAll(60 * SECOND);
    BatchOutcome o = only();
    assertThat(o.status()).isEqualTo(Status.ACKED);
    assertThat(o.attempts()).isEqualTo(2);
    assertThat(sender.sent.get(1).seqs()).isEqualTo(sender.sent.get(0).seqs());
    assertThat(d.stats().linesRetried.getCount()).isEqualTo(LINES);
    assertThat(d.stats().linesFailed("429").getCount()).isZero();
  }

  @Test
  void atLeastOnceResendsAfterThree503sWithCappedJitteredBackoff() {
    sender.then(status(503)).then(status(503)).then(status(503)).then(accept());
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batch(0, START));
    timer.runAll(60 * SECOND);
    BatchOutcome o = only();
    assertThat(o.status()).isEqualTo(Status.ACKED);
    assertThat(o.attempts()).isEqualTo(4);
    // full jitter: wait n is within [0, 100 ms * 2^n]
    for (int n = 0; n < 3; n++) {
      long wait = sender.sent.get(n + 1).atNanos() - sender.sent.get(n).atNanos();
      assertThat(wait).isBetween(0L, 100_000_000L << n);
    }
  }

  @Test
  void resendsAreCountedByTheCauseOfTheAnswerBeforeThem() {
    BitSet retry = new BitSet();
    retry.set(2);
    retry.set(7);
    sender.then(status(429)).then(status(503)).then(io())
        .then(b -> new SendResult(SendResult.Kind.PARTIAL, 200, 8, List.of(), retry, ""))
        .then(accept());
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batch(0, START));
    timer.runAll(600 * SECOND);
    BatchOutcome o = only();
    assertThat(o.status()).isEqualTo(Status.ACKED);
    assertThat(o.attempts()).isEqualTo(5);
    assertThat(o.resends()).containsExactly(new BatchOutcome.Resend("429", 1, LINES),
        new BatchOutcome.Resend("5xx", 1, LINES), new BatchOutcome.Resend("io", 1, LINES),
        new BatchOutcome.Resend("partial", 1, 2));
    assertThat(d.stats().requestsResentByCause().get("5xx").getCount()).isEqualTo(1);
    assertThat(d.stats().requestsResentByCause().get("timeout").getCount()).isZero();
  }

  @Test
  void aTimeoutIsItsOwnResendCause() {
    assertThat(Deliverer.resendCause(SendResult.retryable(3, 0, "timeout: no answer within 10000 ms")))
        .isEqualTo("timeout");
    assertThat(Deliverer.resendCause(SendResult.retryable(3, 408, "HTTP 408"))).isEqualTo("4xx");
  }

  @Test
  void backoffIsCappedAtMax() {
    DeliverySettings.Retry retry =
        new DeliverySettings.Retry(Duration.ofMillis(100), Duration.ofMillis(250), 2);
    assertThat(retry.capNanos(0)).isEqualTo(100_000_000);
    assertThat(retry.capNanos(1)).isEqualTo(200_000_000);
    assertThat(retry.capNanos(2)).isEqualTo(250_000_000);
    assertThat(retry.capNanos(1000)).isEqualTo(250_000_000);
  }

  @Test
  void partialAnswerResendsOnlyTheRetryLinesWithTheirSeqsAndTimestamps() {
    BitSet retry = new BitSet();
    retry.set(2);
    retry.set(7);
    BitSet bad = new BitSet();
    bad.set(4);
    sender
        .then(b -> new SendResult(SendResult.Kind.PARTIAL, 200, 7,
            List.of(new SendResult.Rejection("400 mapper_parsing_exception", 1, bad)), retry, ""))
        .then(accept());
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batch(0, START));
    timer.runAll(60 * SECOND);
    BatchOutcome o = only();
    assertThat(sender.sent).hasSize(2);
    assertThat(sender.sent.get(1).seqs()).containsExactly(1002L, 1007L);
    assertThat(sender.sent.get(1).timestamps()).containsExactly(59_002L, 60_007L);
    assertThat(o.status()).isEqualTo(Status.PARTIAL);
    assertThat(o.acked()).isEqualTo(9);
    assertThat(o.windows()).containsExactly(
        new WindowTally(0, 6, 5, Map.of("400 mapper_parsing_exception", 1)),
        new WindowTally(60_000, 4, 4, Map.of()));
    assertThat(d.stats().linesFailed("4xx").getCount()).isEqualTo(1);
  }

  @Test
  void partialRejectionByCountRejectsThatManyLines() {
    sender.then(b -> new SendResult(SendResult.Kind.PARTIAL, 400, 8,
        List.of(new SendResult.Rejection("400 timestamp too old", 2, null)), new BitSet(), "total ignored: 2"));
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batch(0, START));
    timer.runAll(SECOND);
    BatchOutcome o = only();
    assertThat(o.status()).isEqualTo(Status.PARTIAL);
    assertThat(o.acked()).isEqualTo(8);
    int rejected = o.windows().stream()
        .mapToInt(w -> w.rejected().getOrDefault("400 timestamp too old", 0)).sum();
    assertThat(rejected).isEqualTo(2);
    assertThat(sender.sent).hasSize(1);
  }

  @Test
  void fatal400IsCountedByReasonAndNeverRetriedInEitherMode() {
    for (DeliverySettings s : List.of(atLeastOnce(), loadTest())) {
      outcomes.clear();
      sender.sent.clear();
      sender.then(fatal(400, "400 entry too far behind"));
      Deliverer d = deliverer(s);
      deliver(d, batch(0, START));
      timer.runAll(60 * SECOND);
      BatchOutcome o = only();
      assertThat(o.status()).isEqualTo(Status.FAILED);
      assertThat(o.attempts()).isEqualTo(1);
      assertThat(o.httpStatus()).isEqualTo(400);
      assertThat(o.windows()).containsExactly(
          new WindowTally(0, 6, 0, Map.of("400 entry too far behind", 6)),
          new WindowTally(60_000, 4, 0, Map.of("400 entry too far behind", 4)));
      assertThat(sender.sent).hasSize(1);
      assertThat(d.stats().linesFailed("4xx").getCount()).isEqualTo(LINES);
    }
  }

  @Test
  void atLeastOnceResendsAHungRequestAfterTheTimeoutAndIgnoresItsLateAnswer() {
    sender.thenHang().then(accept());
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batch(0, START));
    timer.advance(9 * SECOND);
    assertThat(outcomes).isEmpty();
    assertThat(d.stats().inFlightRequests()).isEqualTo(1);
    timer.runAll(60 * SECOND);
    BatchOutcome o = only();
    assertThat(o.status()).isEqualTo(Status.ACKED);
    assertThat(o.attempts()).isEqualTo(2);
    // the hung request answers at last: nothing changes
    sender.hanging.get(0).complete(SendResult.fatal(LINES, 400, "400 late", ""));
    timer.runAll(SECOND);
    assertThat(outcomes).hasSize(1);
    assertThat(d.stats().inFlightRequests()).isZero();
    assertThat(d.stats().linesFailed("4xx").getCount()).isZero();
  }

  /**
   * The case in virtual time: a sender that waits for an acknowledgement answers 15 s
   * after the send, past the 10 s request timeout but within its 72 s answer timeout: the batch
   * is sent once. Without the answer timeout (the old contract) it would be sent again at 10 s.
   */
  @Test
  void aSendIsNotResentBeforeItsAnswerTimeoutEvenPastTheRequestTimeout() {
    sender.thenAfter(15 * SECOND, accept());
    Deliverer d = deliverer(atLeastOnce(), Duration.ofSeconds(72));
    deliver(d, batch(0, START));
    timer.runAll(120 * SECOND);
    BatchOutcome o = only();
    assertThat(o.status()).isEqualTo(Status.ACKED);
    assertThat(o.attempts()).isEqualTo(1);
    assertThat(sender.sent).hasSize(1);
    assertThat(o.serviceNanos()).isEqualTo(15 * SECOND);
    assertThat(d.stats().linesRetried.getCount()).isZero();
  }

  @Test
  void aSendWithoutAnswerWithinItsAnswerTimeoutIsResentAsATimeout() {
    sender.thenHang().then(accept());
    Deliverer d = deliverer(atLeastOnce(), Duration.ofSeconds(72));
    deliver(d, batch(0, START));
    timer.advance(71 * SECOND);
    assertThat(sender.sent).hasSize(1);
    timer.runAll(120 * SECOND);
    BatchOutcome o = only();
    assertThat(o.attempts()).isEqualTo(2);
    assertThat(sender.sent.get(1).atNanos() - sender.sent.get(0).atNanos()).isGreaterThanOrEqualTo(72 * SECOND);
  }

  /**
   * Answer timeouts wait in one queue with one timer task for the oldest: a hung send among sends
   * answered in time still times out at its own deadline, sends answered in time leave no timer
   * task behind but that one, and a send after them waits its full timeout.
   */
  @Test
  void oneTimerTaskTimesOutEachHungSendAtItsOwnDeadline() {
    sender.then(accept()).thenHang().then(accept()).then(accept()).thenHang().then(accept()).then(accept());
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batch(0, START));          // answered at once
    timer.advance(SECOND);
    deliver(d, batch(1, START + SECOND)); // hangs: due to time out at 11 s
    timer.advance(SECOND);
    deliver(d, batch(2, START + 2 * SECOND));
    deliver(d, batch(3, START + 2 * SECOND));
    timer.advance(3 * SECOND);
    deliver(d, batch(4, START + 5 * SECOND)); // hangs: due to time out at 15 s
    timer.runDue();
    assertThat(outcomes).extracting(BatchOutcome::batchId).containsExactly(0L, 2L, 3L);
    assertThat(timer.pending()).isEqualTo(1); // the task for batch 1's deadline, none per send

    var timeouts = d.stats().requestsResentByCause().get("timeout");
    timer.advance(6 * SECOND - 1); // just before batch 1's deadline, 11 s
    assertThat(timeouts.getCount()).isZero();
    timer.advance(1);
    assertThat(timeouts.getCount()).isEqualTo(1); // batch 1, not batch 4
    timer.advance(4 * SECOND - 1); // just before batch 4's deadline, 15 s
    assertThat(timeouts.getCount()).isEqualTo(1);
    assertThat(outcomes).extracting(BatchOutcome::batchId).containsExactly(0L, 2L, 3L, 1L);
    timer.advance(1);
    assertThat(timeouts.getCount()).isEqualTo(2);
    timer.runAll(60 * SECOND);
    assertThat(sender.sent).hasSize(7);
    assertThat(outcomes).extracting(BatchOutcome::batchId).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L);
    assertThat(outcomes).allSatisfy(o -> assertThat(o.status()).isEqualTo(Status.ACKED));
    assertThat(d.stats().requestsResentByCause().get("timeout").getCount()).isEqualTo(2);
    assertThat(timer.pending()).isZero();
    assertThat(d.stats().inFlightRequests()).isZero();
  }

  /**
   * What ends a load test's batch whose send never answers: the answer deadline, not Flink's async
   * operator (which has no timeout of its own). The batch is counted failed by {@code timeout},
   * once, and the answer that comes after changes nothing.
   */
  @Test
  void aLoadTestCountsAHungSendAsATimeoutAtItsAnswerDeadlineAndIgnoresItsLateAnswer() {
    sender.thenHang();
    Deliverer d = deliverer(loadTest(), Duration.ofSeconds(72));
    deliver(d, batch(0, START));
    timer.advance(72 * SECOND - 1);
    assertThat(outcomes).isEmpty();
    timer.advance(1);
    BatchOutcome o = only();
    assertThat(o.status()).isEqualTo(Status.FAILED);
    assertThat(o.attempts()).isEqualTo(1);
    assertThat(o.windows()).containsExactly(
        new WindowTally(0, 6, 0, Map.of("timeout", 6)), new WindowTally(60_000, 4, 0, Map.of("timeout", 4)));
    assertThat(d.stats().linesFailed("timeout").getCount()).isEqualTo(LINES);
    sender.hanging.get(0).complete(accept().apply(batch(0, START)));
    timer.runAll(SECOND);
    assertThat(outcomes).hasSize(1);
    assertThat(sender.sent).hasSize(1);
    assertThat(d.stats().inFlightRequests()).isZero();
    assertThat(timer.pending()).isZero();
  }

  @Test
  void aLoadTestCountsAnAckTimeoutUnderItsOwnReason() {
    sender.then(b -> SendResult.retryable(b.count(), 200, "ack timeout: ackId 3 was not acknowledged within 1m"));
    Deliverer d = deliverer(loadTest(), Duration.ofSeconds(72));
    deliver(d, batch(0, START));
    timer.runAll(SECOND);
    BatchOutcome o = only();
    assertThat(o.status()).isEqualTo(Status.FAILED);
    assertThat(o.httpStatus()).isEqualTo(200);
    assertThat(o.windows()).containsExactly(
        new WindowTally(0, 6, 0, Map.of("ack timeout", 6)), new WindowTally(60_000, 4, 0, Map.of("ack timeout", 4)));
    assertThat(d.stats().linesFailed("timeout").getCount()).isEqualTo(LINES);
  }

  @Test
  void anAnswerTimeoutMustBePositive() {
    assertThatThrownBy(() -> Deliverer.builder().backend("fake", 0).settings(atLeastOnce()).sender(sender)
        .grid(new WindowGrid(0, 60_000)).timer(timer).clock(timer::now).random(new SplittableRandom(7))
        .answerTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A deliverer's answer timeout must be positive, not PT0S.");
  }

  @Test
  void loadTestNeverRetriesAndCountsEveryFailureByStatus() {
    sender.then(status(429)).then(status(503)).then(io()).then(accept());
    Deliverer d = deliverer(loadTest());
    for (int i = 0; i < 4; i++) {
      deliver(d, batch(i, START));
    }
    timer.runAll(60 * SECOND);
    assertThat(failures).isEmpty();
    assertThat(sender.sent).hasSize(4);
    assertThat(outcomes).extracting(BatchOutcome::attempts).containsOnly(1);
    assertThat(outcomes).extracting(BatchOutcome::status)
        .containsExactly(Status.FAILED, Status.FAILED, Status.FAILED, Status.ACKED);
    assertThat(outcomes.get(0).windows().get(0).rejected()).isEqualTo(Map.of("429", 6));
    assertThat(outcomes.get(1).windows().get(0).rejected()).isEqualTo(Map.of("503", 6));
    assertThat(outcomes.get(2).windows().get(0).rejected()).isEqualTo(Map.of("io", 6));
    assertThat(d.stats().linesFailed("429").getCount()).isEqualTo(LINES);
    assertThat(d.stats().linesFailed("5xx").getCount()).isEqualTo(LINES);
    assertThat(d.stats().linesFailed("io").getCount()).isEqualTo(LINES);
    assertThat(d.stats().linesRetried.getCount()).isZero();
  }

  @Test
  void loadTestCountsRetryableItemsOfAPartialAnswerAsFailed() {
    BitSet retry = new BitSet();
    retry.set(0, 3);
    sender.then(b -> new SendResult(SendResult.Kind.PARTIAL, 200, 7, List.of(), retry, ""));
    Deliverer d = deliverer(loadTest());
    deliver(d, batch(0, START));
    timer.runAll(SECOND);
    BatchOutcome o = only();
    assertThat(o.status()).isEqualTo(Status.PARTIAL);
    assertThat(o.acked()).isEqualTo(7);
    assertThat(o.windows().get(0).rejected()).isEqualTo(Map.of("retryable item", 3));
    assertThat(sender.sent).hasSize(1);
  }

  /** Random answers, every kind: every line ends acked or rejected for good, none lost. */
  @Test
  void atLeastOnceNeverLosesALine() {
    SplittableRandom rnd = new SplittableRandom(42);
    for (int i = 0; i < 400; i++) {
      switch (rnd.nextInt(6)) {
        case 0 -> sender.then(status(429));
        case 1 -> sender.then(status(503));
        case 2 -> sender.then(io());
        case 3 -> sender.thenHang();
        case 4 -> {
          sender.then(b -> {
            BitSet retry = new BitSet();
            for (int k = 0; k < b.count(); k++) {
              if (rnd.nextBoolean()) {
                retry.set(k);
              }
            }
            Kind kind = retry.isEmpty() ? Kind.ACCEPTED : Kind.PARTIAL;
            return new SendResult(kind.k, 200, b.count() - retry.cardinality(), List.of(), retry, "");
          });
        }
        default -> sender.then(accept());
      }
    }
    sender.then(accept());
    Deliverer d = deliverer(atLeastOnce().withTimeout(Duration.ofSeconds(1)));
    for (int i = 0; i < 50; i++) {
      deliver(d, batch(i, START + i * 10_000_000L));
    }
    timer.runAll(3_600 * SECOND);
    assertThat(failures).isEmpty();
    assertThat(outcomes).hasSize(50);
    assertThat(outcomes).extracting(BatchOutcome::status).containsOnly(Status.ACKED);
    // every line reached the backend in an answer that accepted it
    Set<Long> expected = new TreeSet<>();
    for (long s = 1000; s < 1000 + 50 * LINES; s++) {
      expected.add(s);
    }
    Set<Long> sentSeqs = new HashSet<>();
    sender.sent.forEach(s -> sentSeqs.addAll(s.seqs()));
    assertThat(sentSeqs).containsAll(expected);
    assertThat(d.stats().linesAcked.getCount()).isEqualTo(50L * LINES);
    assertThat(d.stats().inFlightRequests()).isZero();
  }

  private enum Kind {
    ACCEPTED(SendResult.Kind.ACCEPTED),
    PARTIAL(SendResult.Kind.PARTIAL);

    final SendResult.Kind k;

    Kind(SendResult.Kind k) {
      this.k = k;
    }
  }

  @Test
  void aSenderThatFailsItsFutureFailsTheBatch() {
    sender.then(b -> {
      throw new IllegalStateException("boom");
    });
    Deliverer d = deliverer(atLeastOnce());
    deliver(d, batch(0, START));
    timer.runAll(SECOND);
    assertThat(outcomes).isEmpty();
    assertThat(failures).singleElement().satisfies(e ->
        assertThat(e).hasMessage("The sender of backend fake failed instead of classifying its answer; this is a bug."));
  }
}
