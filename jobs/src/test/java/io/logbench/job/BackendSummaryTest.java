package io.logbench.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.schedule.LadderSchedule;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome.WindowTally;
import io.logbench.sink.DeliverySettings.Mode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Per-backend totals and ladder step rows from outcomes. */
class BackendSummaryTest {

  // steps 100/s and 200/s, 1 s ramps, 2 s holds: step 0 holds [1 s, 3 s), step 1 holds [4 s, 6 s)
  private final LadderSchedule ladder =
      new LadderSchedule(List.of(100L, 200L), Duration.ofSeconds(1), Duration.ofSeconds(2), 10_000);

  private BatchOutcome outcome(long firstRunLine, int lines, Status status, int acked, String reason, long latencyMs) {
    Map<String, Integer> rejected = acked == lines ? Map.of() : Map.of(reason, lines - acked);
    return new BatchOutcome("x", firstRunLine / 10, 1_000 + firstRunLine, lines, status, 0, 1, 0,
        latencyMs * 1_000_000, 0, List.of(new WindowTally(0, lines, acked, rejected)));
  }

  @Test
  void everyLineAckedGivesTheTargetRateOnEachHold() {
    BackendSummary s = new BackendSummary("x", Mode.AT_LEAST_ONCE, ladder.lines(), ladder, 1_000);
    for (long i = 0; i < ladder.lines(); i += 10) {
      s.add(outcome(i, (int) Math.min(10, ladder.lines() - i), Status.ACKED, (int) Math.min(10, ladder.lines() - i), "", 5));
    }
    assertThat(s.allAcked()).isTrue();
    List<StepRow> rows = s.steps();
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0).ackedInHold()).isEqualTo(200);
    assertThat(rows.get(0).achievedRate()).isEqualTo(100.0);
    assertThat(rows.get(1).ackedInHold()).isEqualTo(400);
    assertThat(rows.get(1).achievedRate()).isEqualTo(200.0);
    assertThat(rows.get(1).p50Micros()).isEqualTo(5_000);
    assertThat(rows.get(1).failures()).isEmpty();
  }

  @Test
  void failuresAndLatencyGoToTheStepOfTheBatchesDueTime() {
    BackendSummary s = new BackendSummary("x", Mode.LOAD_TEST, ladder.lines(), ladder, 1_000);
    long inHold1 = ladder.dueBy(4_500_000_000L); // a line due 4.5 s in: step 1's hold
    s.add(outcome(inHold1, 10, Status.FAILED, 0, "503", 900));
    s.add(outcome(inHold1 + 10, 10, Status.PARTIAL, 6, "400 too old", 100));
    assertThat(s.acked()).isEqualTo(6);
    assertThat(s.failed()).isEqualTo(Map.of("503", 10L, "400 too old", 4L));
    assertThat(s.allAcked()).isFalse();
    StepRow r = s.steps().get(1);
    assertThat(r.ackedInHold()).isEqualTo(6);
    assertThat(r.failures()).isEqualTo(Map.of("503", 10L, "400 too old", 4L));
    assertThat(r.failuresText()).isEqualTo("400 too old=4;503=10");
    assertThat(r.maxMicros()).isEqualTo(900_000);
    assertThat(s.steps().get(0).batches()).isZero();
  }
}
