package io.logbench.verify;

import io.logbench.ledger.LedgerEntry;
import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one backend holds in one window {@code [windowStartMillis, windowEndMillis)}, judged from
 * three numbers: expected (the dataset), acked (the ledger) and observed (counted in the backend).
 *
 * @param observed lines counted in the backend, or -1 when it did not answer
 * @param rejected lines the ledger says were not stored, by reason (empty when none)
 * @param detail a sentence for reports: why the status, with rejection reasons; empty when OK
 */
public record Verdict(
    String backend,
    long windowStartMillis,
    long windowEndMillis,
    long expected,
    long acked,
    long observed,
    Status status,
    Map<String, Long> rejected,
    String detail)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** What the three numbers mean together. */
  public enum Status {
    /** observed == acked == expected. */
    OK,
    /** observed &lt; acked: lines the backend accepted and then did not hold. */
    MISSING,
    /** observed &gt; acked: more lines held than acknowledged. */
    DUPLICATE,
    /** observed == acked &lt; expected: lines refused (or never sent), as the ledger says. */
    REJECTED,
    /** No verdict yet: the backend did not answer, or the ledger has not settled for the window. */
    PENDING,
    /**
     * observed &gt; acked, and every extra copy is of a line a restore sent again (at-least-once
     * replay after a task failure), as the run directory's restore records say; not a backend fault.
     */
    REPLAYED,
    /**
     * A canary's spot check: a window verified earlier (OK or REPLAYED) now holds fewer lines than
     * at that verdict: lines lost after they were stored (retention, compaction, a deleted file).
     */
    LOST
  }

  public Verdict {
    rejected = rejected == null ? new TreeMap<>() : new TreeMap<>(rejected);
    detail = detail == null ? "" : detail;
  }

  /** Lines lost after acknowledgement (MISSING), else 0. */
  public long missingLines() {
    return status == Status.MISSING ? acked - observed : 0;
  }

  /** Lines held beyond the acknowledged (DUPLICATE), else 0. */
  public long duplicateLines() {
    return status == Status.DUPLICATE ? Math.max(observed - acked, observed - expected) : 0;
  }

  /** Extra copies of lines sent again after a restore (REPLAYED), else 0. */
  public long replayedLines() {
    return status == Status.REPLAYED ? observed - acked : 0;
  }

  /** Lines of the window the backend never acknowledged (any status with an answer). */
  public long unackedLines() {
    return Math.max(0, expected - acked);
  }

  /** The same verdict with another status and detail (e.g. a PENDING window past its deadline). */
  public Verdict with(Status newStatus, String newDetail) {
    return new Verdict(backend, windowStartMillis, windowEndMillis, expected, acked, observed, newStatus, rejected,
        newDetail);
  }

  /**
   * The verdict of a window; pure.
   *
   * <ol>
   *   <li>no answer from the backend ({@code observedOrNull == null}): PENDING, with {@code
   *       noAnswer} as the detail;
   *   <li>no ledger row: acked is 0 when the window expects no line; otherwise PENDING (the ledger
   *       has not reached the window);
   *   <li>observed &lt; acked: MISSING; observed &gt; acked: DUPLICATE (both win over a
   *       rejection, whose reasons stay in the detail);
   *   <li>observed == acked == expected: OK;
   *   <li>observed == acked &lt; expected: REJECTED with the ledger's reasons, and the lines that
   *       never ended a batch as "not sent"; but PENDING when the ledger is not final and still
   *       waits for batches of the window ({@code sent < expected});
   *   <li>observed == acked &gt; expected: DUPLICATE (the ledger acknowledged more lines than the
   *       dataset has in the window).
   * </ol>
   *
   * @param ledgerFinal whether the ledger is the finished run's (its ledger.csv), so that lines
   *     never sent are final
   */
  public static Verdict judge(String backend, long start, long end, long expected, LedgerEntry row,
      Long observedOrNull, String noAnswer, boolean ledgerFinal) {
    return judge(backend, start, end, expected, new LedgerRollup.Window(row, row == null ? 0 : 1, 0),
        observedOrNull, noAnswer, ledgerFinal);
  }

  /**
   * As {@link #judge(String, long, long, long, LedgerEntry, Long, String, boolean)}, for a window
   * that covers several ledger windows: {@code ledger.row()} is the sum of their rows ({@link
   * LedgerRollup}), and while some of them that expect lines have no row yet ({@code
   * ledger.unledgered() > 0}) the window is PENDING, before anything else is judged: the rows
   * that are there cannot say whether the window's lines were acknowledged.
   */
  public static Verdict judge(String backend, long start, long end, long expected, LedgerRollup.Window ledger,
      Long observedOrNull, String noAnswer, boolean ledgerFinal) {
    LedgerEntry row = ledger.row();
    long acked = row == null ? 0 : row.acked();
    Map<String, Long> rejected = row == null ? Map.of() : row.rejected();
    long observed = observedOrNull == null ? -1 : observedOrNull;
    if (observedOrNull == null) {
      return new Verdict(backend, start, end, expected, acked, -1, Status.PENDING, rejected,
          "the backend did not answer: " + noAnswer);
    }
    if (row == null && expected > 0) {
      return new Verdict(backend, start, end, expected, 0, observed, Status.PENDING, rejected,
          "the ledger has no row for this window yet");
    }
    if (ledger.unledgered() > 0) {
      return new Verdict(backend, start, end, expected, acked, observed, Status.PENDING, rejected,
          "the ledger has no row yet for " + ledger.unledgered() + " of this window's " + expected + " line(s)");
    }
    String reasons = reasons(expected, row, ledgerFinal);
    if (observed < acked) {
      return new Verdict(backend, start, end, expected, acked, observed, Status.MISSING, rejected,
          (acked - observed) + " acknowledged line(s) not found" + (reasons.isEmpty() ? "" : "; also " + reasons));
    }
    if (observed > acked) {
      return new Verdict(backend, start, end, expected, acked, observed, Status.DUPLICATE, rejected,
          (observed - acked) + " line(s) more than acknowledged" + (reasons.isEmpty() ? "" : "; also " + reasons));
    }
    if (acked == expected) {
      return new Verdict(backend, start, end, expected, acked, observed, Status.OK, rejected, "");
    }
    if (acked > expected) {
      return new Verdict(backend, start, end, expected, acked, observed, Status.DUPLICATE, rejected,
          "the ledger acknowledged " + (acked - expected) + " line(s) more than the window expects");
    }
    if (!ledgerFinal && row.ended() < expected) {
      return new Verdict(backend, start, end, expected, acked, observed, Status.PENDING, rejected,
          "the ledger still waits for " + (expected - row.ended()) + " line(s) of this window");
    }
    return new Verdict(backend, start, end, expected, acked, observed, Status.REJECTED, rejected, reasons);
  }

  /** "N line(s) not acknowledged: reason=n, ...; not sent=m", or empty when all were acked. */
  static String reasons(long expected, LedgerEntry row, boolean ledgerFinal) {
    long acked = row == null ? 0 : row.acked();
    if (acked >= expected) {
      return "";
    }
    StringBuilder b = new StringBuilder().append(expected - acked).append(" line(s) not acknowledged");
    StringBuilder why = new StringBuilder();
    if (row != null) {
      row.rejected().forEach((r, n) -> why.append(why.length() == 0 ? "" : ", ").append(r).append('=').append(n));
      // aborted lines are among the reasons already; "not sent" is what no batch ended with
      long unsent = expected - row.ended();
      if (unsent > 0) {
        why.append(why.length() == 0 ? "" : ", ").append(ledgerFinal ? "not sent=" : "not ended yet=").append(unsent);
      }
      long unexplained = expected - acked - row.rejectedTotal() - Math.max(0, unsent);
      if (unexplained > 0) {
        why.append(why.length() == 0 ? "" : ", ").append("failed=").append(unexplained);
      }
    }
    return why.length() == 0 ? b.toString() : b.append(": ").append(why).toString();
  }
}
