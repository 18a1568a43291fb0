package io.logbench.ledger;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Per-backend totals of a run's final ledger (expected, sent, acked, rejected by reason, windows),
 * printable as a table and written to {@value #FILE} in the run directory.
 *
 * @param backends one row per backend, sorted by name
 */
public record RunSummary(List<BackendTotals> backends) {

  public static final String FILE = "summary.txt";

  public RunSummary {
    backends = List.copyOf(backends);
  }

  /**
   * One backend's totals.
   *
   * @param backend backend name
   * @param windows ledger rows (windows) of the backend
   * @param expected lines expected over all its windows
   * @param sent lines sent
   * @param acked lines acknowledged
   * @param rejected lines rejected, by reason
   */
  public record BackendTotals(
      String backend, long windows, long expected, long sent, long acked, Map<String, Long> rejected) {

    public BackendTotals {
      rejected = new TreeMap<>(rejected);
    }

    /** Lines rejected for any reason. */
    public long rejectedTotal() {
      return rejected.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** The totals of final ledger rows (one per backend and window). */
  public static RunSummary of(Collection<LedgerEntry> entries) {
    TreeMap<String, long[]> sums = new TreeMap<>();
    TreeMap<String, TreeMap<String, Long>> reasons = new TreeMap<>();
    for (LedgerEntry e : entries) {
      long[] s = sums.computeIfAbsent(e.backend(), b -> new long[4]);
      s[0]++;
      s[1] += e.expected();
      s[2] += e.sent();
      s[3] += e.acked();
      TreeMap<String, Long> r = reasons.computeIfAbsent(e.backend(), b -> new TreeMap<>());
      e.rejected().forEach((reason, n) -> r.merge(reason, n, Long::sum));
    }
    List<BackendTotals> rows = new ArrayList<>();
    sums.forEach((b, s) -> rows.add(new BackendTotals(b, s[0], s[1], s[2], s[3], reasons.get(b))));
    return new RunSummary(rows);
  }

  /** A fixed-width table, one line per backend, then one line per rejection reason. */
  public String table() {
    int width = "backend".length();
    for (BackendTotals t : backends) {
      width = Math.max(width, t.backend().length());
    }
    String format = "%-" + width + "s %9s %15s %15s %15s %15s%n";
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, format, "backend", "windows", "expected", "sent", "acked", "rejected"));
    for (BackendTotals t : backends) {
      out.append(String.format(Locale.ROOT, format, t.backend(), t.windows(), t.expected(), t.sent(),
          t.acked(), t.rejectedTotal()));
    }
    for (BackendTotals t : backends) {
      t.rejected().forEach((reason, n) ->
          out.append(String.format(Locale.ROOT, "%s rejected %d lines: %s%n", t.backend(), n, reason)));
    }
    return out.toString();
  }

  /** Writes the table to {@value #FILE} in {@code runDir}. */
  public void write(Path runDir) throws IOException {
    write(io.logbench.rundir.RunDir.of(runDir));
  }

  /** Writes the table to {@value #FILE} in {@code runDir}, whole. */
  public void write(io.logbench.rundir.RunDir runDir) throws IOException {
    runDir.writeString(FILE, table());
  }
}
