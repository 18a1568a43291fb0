package io.logbench.ledger.stream;

import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.stream.SeenBatches;
import io.logbench.ledger.stream.WindowDelta;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.WindowGrid;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ledger's rules in one in-memory object, made of the same pieces as the Flink operators of
 * {@link Ledger}: the first outcome of a (backend, batch id) counts and later ones are dropped;
 * each outcome's windows add to that (backend, window)'s row; a row's expected count comes from
 * {@link ExpectedCounts}; and windows of the span that no batch reached get a row of their own
 * when their expected count is positive. For tests, tools and small runs; not thread-safe.
 */
public final class LedgerBook {

  private final WindowGrid grid;
  private final ExpectedCounts expected;
  private final Map<String, long[]> seen = new HashMap<>();
  private final TreeMap<LedgerEntry.Key, LedgerEntry> rows = new TreeMap<>();
  private long duplicates;

  public LedgerBook(WindowGrid grid, ExpectedCounts expected) {
    this.grid = grid;
    this.expected = expected;
  }

  /** Counts an outcome; false (and nothing counted) if its batch was counted before. */
  public boolean accept(BatchOutcome outcome) {
    long[] block = seen.computeIfAbsent(SeenBatches.key(outcome.backend(), outcome.batchId()), k -> SeenBatches.emptyBlock());
    if (!SeenBatches.markFirst(block, outcome.batchId())) {
      duplicates++;
      return false;
    }
    for (WindowDelta d : WindowDelta.of(outcome)) {
      LedgerEntry.Key key = new LedgerEntry.Key(d.backend(), d.windowStartMillis());
      LedgerEntry row = rows.get(key);
      if (row == null) {
        row = emptyRow(d.backend(), d.windowStartMillis());
      }
      rows.put(key, row.plus(d.sent(), d.acked(), d.rejected()));
    }
    return true;
  }

  /** Outcomes dropped as repeats. */
  public long duplicates() {
    return duplicates;
  }

  /** Rows of windows that batches reached, sorted. */
  public List<LedgerEntry> counted() {
    return new ArrayList<>(rows.values());
  }

  /**
   * The final rows: every counted row plus, for each of {@code backends}, a row (sent 0) for each
   * window of {@code [fromMillis, toMillis)} that no batch reached and that expects lines; sorted.
   */
  public List<LedgerEntry> entries(Collection<String> backends, long fromMillis, long toMillis) {
    TreeMap<LedgerEntry.Key, LedgerEntry> out = new TreeMap<>(rows);
    for (long start : Ledger.windowStarts(grid, fromMillis, toMillis)) {
      for (String b : backends) {
        LedgerEntry.Key key = new LedgerEntry.Key(b, start);
        if (!out.containsKey(key)) {
          LedgerEntry row = emptyRow(b, start);
          if (row.expected() > 0) {
            out.put(key, row);
          }
        }
      }
    }
    return new ArrayList<>(out.values());
  }

  private LedgerEntry emptyRow(String backend, long start) {
    long end = start + grid.sizeMillis();
    return LedgerEntry.empty(backend, start, end, expected.count(start, end));
  }
}
