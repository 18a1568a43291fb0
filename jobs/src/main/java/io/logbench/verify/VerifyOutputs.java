package io.logbench.verify;

import io.logbench.verify.Verdict.Status;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The verifier's files in the run directory and its printed table.
 *
 * <ul>
 *   <li>{@value #VERDICTS}: {@value #VERDICTS_HEADER}, one row per backend and window, times
 *       ISO-8601 with the run zone's offset, observed -1 when the backend never answered;
 *   <li>{@value #MISSING}: {@value #MISSING_HEADER}, the drill-down: one row per missing or
 *       duplicated sequence id (count = times found; kind {@code replayed} for a line a restore
 *       sent again, {@code duplicate} for any other), and a row of kind {@code note} when a
 *       window's drill-down is partial or impossible;
 *   <li>{@value #SUMMARY}: the printed table and the verdict line;
 *   <li>{@value #STATS}: {@value #STATS_HEADER}, one row per backend: windows with a verdict, the
 *       count reader's requests and their total time (the report's count-query latency), and why
 *       a backend was skipped (empty when it was checked).
 * </ul>
 */
public final class VerifyOutputs {

  public static final String VERDICTS = "verdicts.csv";
  public static final String VERDICTS_HEADER =
      "backend,window_start,window_end,status,expected,acked,observed,detail";
  public static final String MISSING = "missing.csv";
  public static final String MISSING_HEADER = "backend,window_start,kind,seq,count,note";
  public static final String SUMMARY = "verify-summary.txt";
  public static final String STATS = "verify-stats.csv";
  public static final String STATS_HEADER = "backend,windows_checked,queries,query_ms,skipped";

  private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

  private VerifyOutputs() {}

  static String time(long millis, ZoneId zone) {
    return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), zone).format(TIME);
  }

  static String field(String s) {
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }

  public static String verdictsCsv(List<BackendReport> reports, ZoneId zone) {
    StringBuilder out = new StringBuilder(VERDICTS_HEADER).append('\n');
    for (BackendReport r : reports) {
      for (Verdict v : r.verdicts()) {
        out.append(String.join(",", field(v.backend()), time(v.windowStartMillis(), zone),
            time(v.windowEndMillis(), zone), v.status().name(), Long.toString(v.expected()),
            Long.toString(v.acked()), Long.toString(v.observed()), field(v.detail()))).append('\n');
      }
    }
    return out.toString();
  }

  public static String missingCsv(List<BackendReport> reports, ZoneId zone) {
    StringBuilder out = new StringBuilder(MISSING_HEADER).append('\n');
    for (BackendReport r : reports) {
      for (BackendChecker.Result res : r.results()) {
        Drill d = res.drill();
        if (d == null) {
          continue;
        }
        Verdict v = res.verdict();
        String prefix = field(v.backend()) + "," + time(v.windowStartMillis(), zone) + ",";
        long rejected = v.unackedLines();
        String note = rejected == 0 ? "" : field("the ledger did not get " + rejected
            + " line(s) of this window acknowledged (" + (v.rejected().isEmpty() ? "not sent" : v.rejected())
            + "); this id may be one of them");
        for (long id : d.missing()) {
          out.append(prefix).append("missing,").append(id).append(",0,").append(note).append('\n');
        }
        d.duplicates().forEach((id, n) -> out.append(prefix).append("duplicate,").append(id).append(',').append(n)
            .append(",\n"));
        d.replayed().forEach((id, n) -> out.append(prefix).append("replayed,").append(id).append(',').append(n)
            .append(",sent again after a restore\n"));
        for (long id : d.strangers()) {
          out.append(prefix).append("unexpected,").append(id).append(",1,").append(field("outside the window's"
              + " expected ids")).append('\n');
        }
        if (!d.note().isEmpty() || d.missingTotal() > d.missing().size()) {
          String n = d.note().isEmpty() ? d.missingTotal() + " ids missing in all; listed the first "
              + d.missing().size() : d.note();
          out.append(prefix).append("note,,,").append(field(n)).append('\n');
        }
      }
    }
    return out.toString();
  }

  /** One row per backend: windows judged, count requests and their total milliseconds. */
  public static String statsCsv(List<BackendReport> reports) {
    StringBuilder out = new StringBuilder(STATS_HEADER).append('\n');
    for (BackendReport r : reports) {
      if (r.skippedReason() != null) {
        out.append(field(r.backend())).append(",0,0,0,").append(field(r.skippedReason())).append('\n');
        continue;
      }
      int checked = r.windowsByStatus().values().stream().mapToInt(Integer::intValue).sum();
      out.append(field(r.backend())).append(',').append(checked).append(',').append(r.stats().requests())
          .append(',').append(String.format(Locale.ROOT, "%.3f", r.stats().nanos() / 1e6)).append(",\n");
    }
    return out.toString();
  }

  /** The per-backend table. */
  public static void printTable(List<BackendReport> reports, PrintStream out) {
    out.printf(Locale.ROOT, "%-16s %8s %8s %9s %10s %10s %10s %9s %9s %9s %11s %10s%n", "backend", "windows",
        "ok", "rejected", "missing", "duplicate", "replayed", "rejected", "pending", "queries", "query ms", "mean ms");
    out.printf(Locale.ROOT, "%-16s %8s %8s %9s %10s %10s %10s %9s %9s %9s %11s %10s%n", "", "checked", "windows",
        "windows", "lines", "lines", "lines", "lines", "windows", "", "total", "");
    for (BackendReport r : reports) {
      if (r.skippedReason() != null) {
        out.printf(Locale.ROOT, "%-16s skipped: %s%n", r.backend(), r.skippedReason());
        continue;
      }
      Map<Status, Integer> by = r.windowsByStatus();
      int checked = by.values().stream().mapToInt(Integer::intValue).sum();
      long req = r.stats().requests();
      double totalMs = r.stats().nanos() / 1e6;
      out.printf(Locale.ROOT, "%-16s %8d %8d %9d %10d %10d %10d %9d %9d %9d %11.1f %10.1f%n", r.backend(),
          checked, by.get(Status.OK), by.get(Status.REJECTED), r.missingLines(), r.duplicateLines(),
          r.replayedLines(), r.rejectedLines(), by.get(Status.PENDING), req, totalMs, req == 0 ? 0.0 : totalMs / req);
    }
  }

  /**
   * Writes verdicts.csv, missing.csv, verify-summary.txt ({@code summary} is the printed text) and
   * verify-stats.csv.
   */
  public static void write(Path runDir, List<BackendReport> reports, ZoneId zone, String summary) throws IOException {
    write(io.logbench.rundir.RunDir.of(runDir), reports, zone, summary);
  }

  /** As {@link #write(Path, List, ZoneId, String)}, for a run directory anywhere (each file written whole). */
  public static void write(io.logbench.rundir.RunDir runDir, List<BackendReport> reports, ZoneId zone, String summary)
      throws IOException {
    runDir.writeString(VERDICTS, verdictsCsv(reports, zone));
    runDir.writeString(MISSING, missingCsv(reports, zone));
    runDir.writeString(SUMMARY, summary);
    runDir.writeString(STATS, statsCsv(reports));
  }
}
