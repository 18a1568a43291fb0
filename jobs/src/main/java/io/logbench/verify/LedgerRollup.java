package io.logbench.verify;

import io.logbench.ledger.LedgerEntry;
import io.logbench.schedule.ExpectedCounts;
import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ledger's rows summed up to the verifier's windows. The ledger has one row per backend and
 * window of the run's size {@code w}; a verifier window of {@code W}, a whole multiple of {@code
 * w} on the same grid, covers {@code W / w} of them, and its row is their sum: expected, sent and
 * acked lines added up, rejection reasons merged. A verifier window of the ledger's own size is
 * its row unchanged.
 *
 * <p>A window is known to the ledger only when every ledger window inside it that expects lines
 * has its row: {@link Window#unledgered} counts the lines of those that have none yet (a live
 * run's ledger gains rows as batches end), and the verifier keeps such a window PENDING, as it
 * keeps a ledger window without a row. A ledger window that still waits for batches ({@code sent
 * < expected}) makes the sum wait too, so a coarse window settles only when all its rows have.
 *
 * @param ledgerWindowMillis the size of the ledger's windows
 */
public record LedgerRollup(long ledgerWindowMillis) implements Serializable {

  private static final long serialVersionUID = 1L;

  public LedgerRollup {
    if (ledgerWindowMillis <= 0) {
      throw new IllegalArgumentException("The ledger's window must be at least 1 ms, not " + ledgerWindowMillis
          + " ms.");
    }
  }

  /**
   * One verifier window's share of the ledger.
   *
   * @param row the sum of the ledger rows inside the window, or null when it has none
   * @param rows how many ledger rows were summed
   * @param unledgered lines expected in ledger windows inside that have no row yet
   */
  public record Window(LedgerEntry row, int rows, long unledgered) {}

  /**
   * The ledger rows of {@code [start, end)} summed, from {@code rows} (one backend's rows by window
   * start). {@code end - start} must be a whole number of ledger windows and {@code start} on the
   * ledger's grid (the verify plan checks both).
   *
   * @param expected the run's expected counts, for the lines of ledger windows without a row
   */
  public Window window(String backend, long start, long end, Map<Long, LedgerEntry> rows,
      ExpectedCounts expected) {
    if ((end - start) % ledgerWindowMillis != 0 || end <= start) {
      throw new IllegalArgumentException("A window of " + (end - start) + " ms is not a whole number of the"
          + " ledger's " + ledgerWindowMillis + " ms windows.");
    }
    if (end - start == ledgerWindowMillis) {
      LedgerEntry row = rows.get(start);
      return new Window(row, row == null ? 0 : 1, row == null ? expected.count(start, end) : 0);
    }
    long exp = 0;
    long sent = 0;
    long acked = 0;
    Map<String, Long> rejected = new TreeMap<>();
    int found = 0;
    long unledgered = 0;
    for (long s = start; s < end; s += ledgerWindowMillis) {
      LedgerEntry r = rows.get(s);
      if (r == null) {
        unledgered += expected.count(s, s + ledgerWindowMillis);
        continue;
      }
      found++;
      exp += r.expected();
      sent += r.sent();
      acked += r.acked();
      r.rejected().forEach((reason, n) -> rejected.merge(reason, n, Long::sum));
    }
    LedgerEntry sum = found == 0 ? null : new LedgerEntry(backend, start, end, exp, sent, acked, rejected);
    return new Window(sum, found, unledgered);
  }
}
