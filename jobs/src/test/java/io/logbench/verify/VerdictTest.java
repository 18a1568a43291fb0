package io.logbench.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.ledger.LedgerEntry;
import io.logbench.verify.Verdict.Status;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Verdict.judge for every case, and the precedence of MISSING and DUPLICATE over a rejection. */
class VerdictTest {

  private static LedgerEntry row(long expected, long sent, long acked, Map<String, Long> rejected) {
    return new LedgerEntry("loki", 0, 60_000, expected, sent, acked, rejected);
  }

  private static Verdict judge(long expected, LedgerEntry row, Long observed, boolean ledgerFinal) {
    return Verdict.judge("loki", 0, 60_000, expected, row, observed, "timed out", ledgerFinal);
  }

  @Test
  void okWhenAllThreeAgree() {
    Verdict v = judge(100, row(100, 100, 100, Map.of()), 100L, true);
    assertThat(v.status()).isEqualTo(Status.OK);
    assertThat(v.detail()).isEmpty();
    assertThat(v.missingLines()).isZero();
  }

  @Test
  void missingWhenFewerObservedThanAcked() {
    Verdict v = judge(100, row(100, 100, 100, Map.of()), 93L, true);
    assertThat(v.status()).isEqualTo(Status.MISSING);
    assertThat(v.missingLines()).isEqualTo(7);
    assertThat(v.detail()).isEqualTo("7 acknowledged line(s) not found");
  }

  @Test
  void duplicateWhenMoreObservedThanAcked() {
    Verdict v = judge(100, row(100, 100, 100, Map.of()), 130L, true);
    assertThat(v.status()).isEqualTo(Status.DUPLICATE);
    assertThat(v.duplicateLines()).isEqualTo(30);
    assertThat(v.detail()).isEqualTo("30 line(s) more than acknowledged");
  }

  @Test
  void rejectedWhenObservedEqualsAckedBelowExpectedWithTheLedgersReasons() {
    Verdict v = judge(100, row(100, 100, 90, Map.of("400 line too long", 6L, "413", 4L)), 90L, true);
    assertThat(v.status()).isEqualTo(Status.REJECTED);
    assertThat(v.unackedLines()).isEqualTo(10);
    assertThat(v.detail()).isEqualTo("10 line(s) not acknowledged: 400 line too long=6, 413=4");
  }

  @Test
  void linesNeverSentInAFinishedRunAreRejectedAsNotSent() {
    Verdict v = judge(100, row(100, 60, 60, Map.of()), 60L, true);
    assertThat(v.status()).isEqualTo(Status.REJECTED);
    assertThat(v.detail()).isEqualTo("40 line(s) not acknowledged: not sent=40");
  }

  @Test
  void aLiveLedgerStillWaitingForBatchesIsPending() {
    Verdict v = judge(100, row(100, 60, 60, Map.of()), 60L, false);
    assertThat(v.status()).isEqualTo(Status.PENDING);
    assertThat(v.detail()).isEqualTo("the ledger still waits for 40 line(s) of this window");
  }

  @Test
  void missingWinsOverRejectedAndKeepsTheReasons() {
    Verdict v = judge(100, row(100, 100, 90, Map.of("400", 10L)), 85L, true);
    assertThat(v.status()).isEqualTo(Status.MISSING);
    assertThat(v.missingLines()).isEqualTo(5);
    assertThat(v.detail()).isEqualTo("5 acknowledged line(s) not found; also 10 line(s) not acknowledged: 400=10");
  }

  @Test
  void duplicateWinsOverRejected() {
    Verdict v = judge(100, row(100, 100, 90, Map.of("400", 10L)), 95L, true);
    assertThat(v.status()).isEqualTo(Status.DUPLICATE);
    assertThat(v.detail()).startsWith("5 line(s) more than acknowledged; also 10 line(s) not acknowledged");
  }

  @Test
  void pendingWhenTheBackendDidNotAnswerAndNeverOk() {
    Verdict v = judge(100, row(100, 100, 100, Map.of()), null, true);
    assertThat(v.status()).isEqualTo(Status.PENDING);
    assertThat(v.observed()).isEqualTo(-1);
    assertThat(v.detail()).isEqualTo("the backend did not answer: timed out");
  }

  @Test
  void noLedgerRowIsPendingUnlessTheWindowExpectsNothing() {
    assertThat(judge(100, null, 100L, true).status()).isEqualTo(Status.PENDING);
    assertThat(judge(0, null, 0L, true).status()).isEqualTo(Status.OK);
    assertThat(judge(0, null, 3L, true).status()).isEqualTo(Status.DUPLICATE);
  }

  @Test
  void ledgerAckingMoreThanExpectedIsDuplicate() {
    Verdict v = judge(100, row(100, 110, 110, Map.of()), 110L, true);
    assertThat(v.status()).isEqualTo(Status.DUPLICATE);
    assertThat(v.duplicateLines()).isEqualTo(10);
  }

  @Test
  void abortedLinesAreNotSentAndAreCountedOnceAsAborted() {
    // a load test aborted 30 lines of the window (never sent) and 10 more never ended a batch
    Verdict v = judge(100, row(100, 60, 60, Map.of("aborted", 30L)), 60L, true);
    assertThat(v.status()).isEqualTo(Status.REJECTED);
    assertThat(v.unackedLines()).isEqualTo(40);
    assertThat(v.detail()).isEqualTo("40 line(s) not acknowledged: aborted=30, not sent=10");
  }

  @Test
  void aLiveLedgerWhoseLinesAllEndedIsNotPendingForAbortedOnes() {
    Verdict v = judge(100, row(100, 70, 70, Map.of("aborted", 30L)), 70L, false);
    assertThat(v.status()).isEqualTo(Status.REJECTED);
    assertThat(v.detail()).isEqualTo("30 line(s) not acknowledged: aborted=30");
  }

  private static Verdict judgeRolled(long expected, LedgerEntry sum, long unledgered, Long observed,
      boolean ledgerFinal) {
    return Verdict.judge("loki", 0, 3_600_000, expected, new LedgerRollup.Window(sum, 60, unledgered), observed,
        "timed out", ledgerFinal);
  }

  @Test
  void aCoarseWindowWithLedgerWindowsStillWithoutARowIsPendingBeforeAnythingElse() {
    LedgerEntry sum = new LedgerEntry("loki", 0, 3_600_000, 5000, 5000, 5000, Map.of());
    // 1,000 of the hour's 6,000 lines are in minutes the ledger has no row for yet: the 5,900
    // lines found would otherwise read as 900 duplicates
    Verdict v = judgeRolled(6000, sum, 1000, 5900L, false);
    assertThat(v.status()).isEqualTo(Status.PENDING);
    assertThat(v.acked()).isEqualTo(5000);
    assertThat(v.detail()).isEqualTo("the ledger has no row yet for 1000 of this window's 6000 line(s)");
    assertThat(judgeRolled(6000, sum, 1000, 5900L, true).status()).isEqualTo(Status.PENDING);
  }

  @Test
  void aCoarseWindowIsFinalOnlyWhenEveryLedgerWindowInsideIs() {
    // every minute has its row, but some still wait for batches: the sum waits too
    LedgerEntry waiting = new LedgerEntry("loki", 0, 3_600_000, 6000, 5900, 5900, Map.of());
    assertThat(judgeRolled(6000, waiting, 0, 5900L, false).detail())
        .isEqualTo("the ledger still waits for 100 line(s) of this window");
    LedgerEntry done = new LedgerEntry("loki", 0, 3_600_000, 6000, 6000, 6000, Map.of());
    assertThat(judgeRolled(6000, done, 0, 6000L, false).status()).isEqualTo(Status.OK);
    assertThat(judgeRolled(6000, done, 0, 5993L, false).missingLines()).isEqualTo(7);
  }
}
