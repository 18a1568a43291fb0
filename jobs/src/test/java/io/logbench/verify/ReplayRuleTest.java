package io.logbench.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.ledger.LedgerEntry;
import io.logbench.replay.ReplayedRange;
import io.logbench.replay.Replays;
import io.logbench.replay.RestoreRecord;
import io.logbench.verify.Verdict.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * DUPLICATE or REPLAYED: a window of ids 1000-1099 (100 lines, all acked) whose batches 0-9 hold
 * 10 lines each; a restore sent batches 2 and 3 (ids 1020-1039) again.
 */
class ReplayRuleTest {

  private static final Replays REPLAYS = Replays.of(List.of(new RestoreRecord(RestoreRecord.SOURCE,
      1_700_000_000_000L, "vl", 1, -1, 5, List.of(new RestoreRecord.StripePosition(0, 1, 2, 3)),
      List.of(ReplayedRange.stripe(2, 3, 1, 10, 1000, 100)))), "vl");

  private static Verdict verdict(long observed) {
    return Verdict.judge("vl", 0, 60_000, 100, new LedgerEntry("vl", 0, 60_000, 100, 100, 100, Map.of()), observed,
        "", true);
  }

  /** Every id of the window once, plus {@code extra}. */
  private static Drill drill(long... extra) {
    List<Long> ids = new ArrayList<>();
    for (long id = 1000; id < 1100; id++) {
      ids.add(id);
    }
    for (long id : extra) {
      ids.add(id);
    }
    return Drill.of(1000, 1100, ids, false, 100, REPLAYS::contains);
  }

  @Test
  void copiesAllInsideAReplayedRangeAreReplayedWithTheRangeAndRestoreNamed() {
    Verdict v = ReplayRule.judge(verdict(103), drill(1020, 1021, 1039), REPLAYS, 1000, 1100);
    assertThat(v.status()).isEqualTo(Status.REPLAYED);
    assertThat(v.replayedLines()).isEqualTo(3);
    assertThat(v.duplicateLines()).isZero();
    assertThat(v.detail()).isEqualTo("3 line(s) more than acknowledged, every extra copy of a line sent again after"
        + " a restore (at-least-once replay): seq 1020-1039 (batches 2-3) by source subtask 1 restored at"
        + " 2023-11-14T22:13:20Z from checkpoint 5");
  }

  @Test
  void aCopyOutsideTheReplayedRangesKeepsTheWindowDuplicate() {
    Verdict v = ReplayRule.judge(verdict(103), drill(1020, 1021, 1050), REPLAYS, 1000, 1100);
    assertThat(v.status()).isEqualTo(Status.DUPLICATE);
    assertThat(v.duplicateLines()).isEqualTo(3);
    assertThat(v.detail()).startsWith("3 line(s) more than acknowledged; restores explain 2 extra cop(ies), not"
        + " 1 extra cop(ies) of lines no restore sent again (replayed: seq 1020-1039");
  }

  @Test
  void aLineOfAnotherRunKeepsTheWindowDuplicate() {
    Verdict v = ReplayRule.judge(verdict(102), drill(1020, 5), REPLAYS, 1000, 1100);
    assertThat(v.status()).isEqualTo(Status.DUPLICATE);
    assertThat(v.detail()).contains("1 line(s) outside the window's ids");
  }

  @Test
  void aLostLineHiddenBehindAReplayedCopyIsNotExplained() {
    List<Long> ids = new ArrayList<>();
    for (long id = 1000; id < 1100; id++) {
      if (id != 1070) {
        ids.add(id);
      }
    }
    ids.addAll(List.of(1020L, 1021L)); // two copies, one line lost: observed - acked = 1
    Drill d = Drill.of(1000, 1100, ids, false, 100, REPLAYS::contains);
    Verdict v = ReplayRule.judge(verdict(101), d, REPLAYS, 1000, 1100);
    assertThat(v.status()).isEqualTo(Status.DUPLICATE);
    assertThat(v.detail()).contains("1 acknowledged line(s) not found behind the copies");
  }

  @Test
  void withoutADrillDownTheCountDecidesAndTheDetailSaysSo() {
    Verdict v = ReplayRule.judge(verdict(120), null, REPLAYS, 1000, 1100);
    assertThat(v.status()).isEqualTo(Status.REPLAYED);
    assertThat(v.detail()).contains("judged by count only (no drill-down was made)");
    Verdict tooMany = ReplayRule.judge(verdict(121), Drill.impossible("too many"), REPLAYS, 1000, 1100);
    assertThat(tooMany.status()).isEqualTo(Status.DUPLICATE);
    assertThat(tooMany.detail()).contains("restores sent only 20 line(s) of this window again, judged by count only"
        + " (the drill-down was not complete: too many)");
  }

  @Test
  void aWindowNoRestoreTouchedAndOtherStatusesAreLeftAlone() {
    Verdict v = ReplayRule.judge(verdict(101), drill(1050), REPLAYS, 1050, 1060);
    assertThat(v.status()).isEqualTo(Status.DUPLICATE);
    assertThat(v.detail()).isEqualTo("1 line(s) more than acknowledged");
    assertThat(ReplayRule.judge(verdict(99), null, REPLAYS, 1000, 1100).status()).isEqualTo(Status.MISSING);
    assertThat(ReplayRule.judge(verdict(103), drill(1020, 1021, 1039), Replays.none(), 1000, 1100).status())
        .isEqualTo(Status.DUPLICATE);
  }
}
