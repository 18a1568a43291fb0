package io.logbench.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.replay.ReplayedRange;
import io.logbench.replay.Replays;
import io.logbench.replay.RestoreRecord;
import io.logbench.schedule.LadderSchedule;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome.WindowTally;
import io.logbench.sink.BatchOutcome;
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

  @Test
  void resendsAreSummedByCauseAndRestoresAddReplayedBatchesToTheRequests() {
    BackendSummary s = new BackendSummary("x", Mode.AT_LEAST_ONCE, 30, ladder, 1_000);
    s.add(new BatchOutcome("x", 0, 1_000, 10, Status.ACKED, 204, 3, 0, 0, 0,
        List.of(new WindowTally(0, 10, 10, Map.of())),
        List.of(new BatchOutcome.Resend("429", 1, 10), new BatchOutcome.Resend("5xx", 1, 10))));
    s.add(new BatchOutcome("x", 1, 1_010, 10, Status.ACKED, 204, 2, 0, 0, 0,
        List.of(new WindowTally(0, 10, 10, Map.of())), List.of(new BatchOutcome.Resend("partial", 1, 2))));
    s.add(outcome(20, 10, Status.ACKED, 10, "", 1));
    assertThat(s.attempts()).isEqualTo(6);
    assertThat(s.requests()).isEqualTo(6);
    assertThat(s.resentRequests()).isEqualTo(Map.of("429", 1L, "5xx", 1L, "partial", 1L));
    assertThat(s.resentLines()).isEqualTo(Map.of("429", 10L, "5xx", 10L, "partial", 2L));

    s.replays(Replays.of(List.of(new RestoreRecord(RestoreRecord.SOURCE, 1, "x", 0, -1, 4, List.of(),
        List.of(ReplayedRange.stripe(1, 2, 1, 10, 1_000, 30))),
        new RestoreRecord(RestoreRecord.SOURCE, 1, "y", 0, -1, 4, List.of(),
        List.of(ReplayedRange.batch(0, 1_000, 10)))), "x"));
    assertThat(s.requests()).isEqualTo(6 + 2);
    assertThat(s.resentRequests()).containsEntry(BackendSummary.REPLAY, 2L);
    assertThat(s.resentLines()).containsEntry(BackendSummary.REPLAY, 20L);
  }
}
