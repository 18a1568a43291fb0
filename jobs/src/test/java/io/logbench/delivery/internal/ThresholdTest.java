package io.logbench.delivery.internal;

import static io.logbench.delivery.internal.ScriptedSender.accept;
import static io.logbench.delivery.internal.ScriptedSender.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.DeliverySettings.Mode;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.ThresholdBreach;
import io.logbench.sink.WindowGrid;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Load-test thresholds (k6's defaults of seed 000: over 1% failed, p95 over 2 s, after 30 s), in virtual time. */
class ThresholdTest {

  private static final long START = 1_700_000_000_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000 * MS;

  private final ManualTimer timer = new ManualTimer(START);
  private final ScriptedSender sender = new ScriptedSender(timer);
  private final List<BatchOutcome> outcomes = new ArrayList<>();
  private final Deliverer deliverer =
      Deliverer.builder()
          .backend("fake", 3)
          .settings(DeliverySettings.defaults().withMode(Mode.LOAD_TEST))
          .sender(sender)
          .grid(new WindowGrid(0, 60_000))
          .timer(timer)
          .clock(timer::now)
          .random(new SplittableRandom(1))
          .build();

  /** Delivers {@code count} batches, one every {@code everyNanos}, as the schedule says. */
  private void run(int count, long everyNanos) {
    for (int i = 0; i < count; i++) {
      deliverer.deliver(DelivererTest.batch(i, START + i * everyNanos), outcomes::add,
          e -> { throw new AssertionError(e); });
      timer.advance(everyNanos);
    }
    timer.runAll(60 * SECOND);
  }

  @Test
  void failedRateOverOnePercentAbortsOnceTheDelayHasPassed() {
    sender.then(status(503)).then(accept()).then(status(503)).then(accept());
    run(60, SECOND);
    ThresholdBreach b = deliverer.stats().breach();
    assertThat(b).isNotNull();
    assertThat(b.threshold()).isEqualTo("failed_rate > 0.01");
    assertThat(b.observed()).isEqualTo("0.0645 (2 of 31 requests failed)");
    assertThat(b.runOffsetMillis()).isEqualTo(30_000);
    assertThat(b.subtask()).isEqualTo(3);
    assertThat(b.epochMillis()).isEqualTo(START / MS + 30_000);
    // batches 0..30 were sent; from batch 31 on nothing was
    assertThat(sender.sent).hasSize(31);
    assertThat(outcomes).hasSize(60);
    for (BatchOutcome o : outcomes.subList(31, 60)) {
      assertThat(o.status()).isEqualTo(Status.ABORTED);
      assertThat(o.attempts()).isZero();
      assertThat(o.windows().get(0).rejected()).isEqualTo(Map.of("aborted", 6));
    }
    assertThat(deliverer.stats().linesFailed("aborted").getCount()).isEqualTo(29 * 10);
  }

  @Test
  void failedRateUnderOnePercentDoesNotAbort() {
    sender.then(status(503)).then(accept());
    run(600, 100 * MS);
    assertThat(deliverer.stats().breach()).isNull();
    assertThat(sender.sent).hasSize(600);
    assertThat(outcomes).extracting(BatchOutcome::status).doesNotContain(Status.ABORTED);
  }

  @Test
  void nothingIsJudgedBeforeTheDelay() {
    sender.then(status(503));
    run(29, SECOND);
    assertThat(deliverer.stats().breach()).isNull();
    assertThat(outcomes).hasSize(29).extracting(BatchOutcome::status).containsOnly(Status.FAILED);
  }

  @Test
  void p95OverTwoSecondsAborts() {
    sender.thenAfter(2_500 * MS, accept());
    run(40, SECOND);
    ThresholdBreach b = deliverer.stats().breach();
    assertThat(b).isNotNull();
    assertThat(b.threshold()).isEqualTo("p95 > 2000 ms");
    assertThat(b.runOffsetMillis()).isEqualTo(30_500);
    assertThat(b.describe()).startsWith("backend fake (task 3) crossed p95 > 2000 ms with p95 2");
    assertThat(outcomes).extracting(BatchOutcome::status).contains(Status.ABORTED);
  }

  @Test
  void p95UnderTwoSecondsDoesNotAbort() {
    sender.thenAfter(1_500 * MS, accept());
    run(40, SECOND);
    assertThat(deliverer.stats().breach()).isNull();
    assertThat(outcomes).hasSize(40).extracting(BatchOutcome::status).containsOnly(Status.ACKED);
  }
}
