package io.logbench.report;

import io.logbench.report.ReportDocument.Block;
import io.logbench.report.ReportDocument.Column;
import io.logbench.report.ReportDocument.Notice;
import io.logbench.report.ReportDocument.Paragraph;
import io.logbench.report.ReportDocument.Section;
import io.logbench.report.ReportDocument.Table;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Seed 004's comparison table, generated from one run directory: per backend the ingest time and
 * rate, bytes stored per line beside the dataset's raw bytes per line, write-to-visible latency
 * ({@value #INGEST}, written by generate), lines lost and duplicated ({@code verdicts.csv}, by
 * verify), and the median time of each search ({@value #QUERIES}, by query), with the seed's own
 * hand-made figures as a reference. Printed by {@code logbench compare} and shown in the report.
 *
 * @param rows one per backend
 * @param searches the searches of {@value #QUERIES}, in file order; empty without the file
 * @param medians median ms by backend, then search
 * @param notes what is missing and why, full sentences
 */
public record Comparison(List<Row> rows, List<String> searches, Map<String, Map<String, Double>> medians,
    List<String> notes) {

  /** generate's per-backend ingest, footprint and visibility figures. */
  public static final String INGEST = "ingest.csv";

  /** query's timings of the seed's searches. */
  public static final String QUERIES = "queries.csv";

  /**
   * Seed 004's figures, measured by hand for a month of 712,743,010 lines (May 2021), taking GB as
   * 10^9 bytes: backend, hours to ingest, bytes stored ("over 100 GB" as 100 GB).
   */
  static final List<Reference> SEED_004 = List.of(
      new Reference("ELK (seed 004, by hand)", 10 * 3600, 100e9, "over 100 GB: at least this"),
      new Reference("Splunk (seed 004, by hand)", 2 * 3600 + 20 * 60, 40e9, ""),
      new Reference("Loki (seed 004, by hand)", 6 * 3600, 9e9, ""));

  /** Lines of seed 004's month, the run its hand-made figures are for. */
  static final long SEED_004_LINES = 712_743_010L;

  /** A hand-made figure of the seed: seconds to ingest its month and bytes stored. */
  record Reference(String name, double seconds, double bytes, String note) {
    double linesPerSecond() {
      return SEED_004_LINES / seconds;
    }

    double bytesPerLine() {
      return bytes / SEED_004_LINES;
    }
  }

  /**
   * One backend's figures; null where unknown.
   *
   * @param verdict the windows' statuses ("OK", "MISSING 2, OK 178") or why there is none
   */
  public record Row(String backend, String kind, Long ackedLines, Double ingestSeconds, Double ackSeconds,
      Double linesPerSecond, Long storedBytes, Double bytesPerLine, Double rawBytesPerLine, Double visibleP50Ms,
      Double visibleP95Ms, Double visibleMaxMs, Double visibleFromScheduleP50Ms, String verdict, Long lost,
      Long duplicated, String notes) {}

  /** The comparison of the run directory {@code data} was read from. */
  public static Comparison of(RunData data) {
    List<String> notes = new ArrayList<>();
    CsvTable ingest = read(data.dir(), INGEST, notes, "No ingest figures: " + INGEST + " is absent"
        + " (generate has not finished here, or an older logbench ran it).");
    CsvTable queries = read(data.dir(), QUERIES, notes, "No search timings: " + QUERIES + " is absent;"
        + " run logbench query with this run file and --run-dir to add them.");
    if (!data.verified()) {
      notes.add("No losses: verify has not run here (verdicts.csv is absent); run logbench verify to add them.");
    }
    Map<String, BackendWindows> windows = BackendWindows.of(data);
    Set<String> backends = new LinkedHashSet<>();
    if (ingest != null) {
      backends.addAll(ingest.distinct("backend"));
    }
    backends.addAll(data.backends());
    backends.remove("");
    List<Row> rows = new ArrayList<>();
    for (String b : backends) {
      List<String> r = ingest == null ? null : ingest.where("backend", b).stream().findFirst().orElse(null);
      BackendWindows w = windows.get(b);
      boolean judged = w != null && w.verifiedWindows() > 0;
      rows.add(new Row(b, cell(ingest, r, "kind"), asLong(num(ingest, r, "acked_lines")),
          num(ingest, r, "ingest_s"), num(ingest, r, "ack_s"), num(ingest, r, "lines_per_s"),
          asLong(num(ingest, r, "stored_bytes")), num(ingest, r, "bytes_per_line"),
          num(ingest, r, "raw_bytes_per_line"), num(ingest, r, "visible_from_ack_p50_ms"),
          num(ingest, r, "visible_from_ack_p95_ms"), num(ingest, r, "visible_from_ack_max_ms"),
          num(ingest, r, "visible_from_schedule_p50_ms"), verdict(data, w), judged ? w.lost() : null,
          judged ? w.duplicated() : null, cell(ingest, r, "notes")));
    }
    List<String> searches = new ArrayList<>();
    Map<String, Map<String, Double>> medians = new LinkedHashMap<>();
    if (queries != null) {
      String median = queries.header().stream().filter(h -> h.toLowerCase(Locale.ROOT).startsWith("median"))
          .findFirst().orElse(null);
      if (median == null || !queries.has("backend")) {
        notes.add(QUERIES + " has no backend or median column (its columns: " + String.join(", ",
            queries.header()) + "): its timings are not shown.");
      } else {
        for (List<String> q : queries.rows()) {
          String search = searchLabel(queries, q);
          Double ms = queries.number(q, median);
          if (!searches.contains(search)) {
            searches.add(search);
          }
          medians.computeIfAbsent(queries.get(q, "backend"), k -> new TreeMap<>()).putIfAbsent(search, ms);
        }
      }
    }
    return new Comparison(rows, searches, medians, notes);
  }

  /** A search's label: its search (or query) column, with its range or bucket columns when there. */
  private static String searchLabel(CsvTable t, List<String> row) {
    String name = t.has("search") ? t.get(row, "search") : t.get(row, "query");
    List<String> parts = new ArrayList<>();
    for (String c : List.of("range", "span", "over", "bucket", "step", "by")) {
      if (t.has(c) && !t.get(row, c).isEmpty()) {
        parts.add(t.get(row, c));
      }
    }
    return parts.isEmpty() ? name : name + " (" + String.join(", ", parts) + ")";
  }

  private static String verdict(RunData data, BackendWindows w) {
    if (!data.verified()) {
      return "not verified";
    }
    if (w == null || w.verifiedWindows() == 0) {
      return "no verdict";
    }
    List<String> out = new ArrayList<>();
    w.byStatus().forEach((s, n) -> {
      if (n > 0) {
        out.add(s + " " + n);
      }
    });
    return String.join(", ", out);
  }

  private static CsvTable read(io.logbench.rundir.RunDir dir, String file, List<String> notes, String absent) {
    try {
      if (!dir.exists(file)) {
        notes.add(absent);
        return null;
      }
      return CsvTable.read(dir, file, Integer.MAX_VALUE, List.of());
    } catch (IOException e) {
      notes.add(file + " could not be read: " + e.getMessage() + ".");
      return null;
    }
  }

  private static String cell(CsvTable t, List<String> row, String column) {
    return t == null || row == null ? "" : t.get(row, column);
  }

  private static Double num(CsvTable t, List<String> row, String column) {
    return t == null || row == null ? null : t.number(row, column);
  }

  private static Long asLong(Double d) {
    return d == null ? null : Math.round(d);
  }

  // ---------------------------------------------------------------- as text

  /** The table as {@code logbench compare} prints it. */
  public String text(String runName) {
    StringBuilder b = new StringBuilder();
    String head = "%-28s %-13s %10s %12s %10s %8s %8s %21s %9s %11s%n";
    b.append("run ").append(runName).append('\n');
    b.append(String.format(Locale.ROOT, head, "backend", "kind", "ingest", "lines/s", "stored", "B/line", "raw B/l",
        "visible p50/p95 ms", "lost", "duplicated"));
    for (Row r : rows) {
      b.append(String.format(Locale.ROOT, head, r.backend(), r.kind().isEmpty() ? "-" : r.kind(),
          duration(r.ingestSeconds()), whole(r.linesPerSecond()), bytes(r.storedBytes()), dec(r.bytesPerLine()),
          dec(r.rawBytesPerLine()), r.visibleP50Ms() == null ? "-" : dec(r.visibleP50Ms()) + "/"
              + dec(r.visibleP95Ms()), r.lost() == null ? "-" : whole(r.lost().doubleValue()),
          r.duplicated() == null ? "-" : whole(r.duplicated().doubleValue())));
    }
    for (Reference s : SEED_004) {
      b.append(String.format(Locale.ROOT, head, s.name(), "", duration(s.seconds()), whole(s.linesPerSecond()),
          bytes((long) s.bytes()), dec(s.bytesPerLine()), "", "", "", ""));
    }
    b.append("(ingest: first send to the count that found every acknowledged line; lines/s over it; stored: what the"
        + " backend reports, B/line per acknowledged line; raw B/l: the dataset's bytes per line with its newline;"
        + " visible: sampled batches, from their answer; seed 004 rows: its month of 712,743,010 lines, by hand)\n");
    for (Row r : rows) {
      if (r.verdict() != null && !r.verdict().isEmpty() && !r.verdict().equals("not verified")) {
        b.append("verdict: ").append(r.backend()).append(": ").append(r.verdict()).append('\n');
      }
    }
    if (!searches.isEmpty()) {
      b.append('\n').append("search medians, ms (").append(QUERIES).append("):\n");
      List<String> names = new ArrayList<>(medians.keySet());
      b.append(String.format(Locale.ROOT, "%-44s", "search"));
      names.forEach(n -> b.append(String.format(Locale.ROOT, " %14s", n)));
      b.append('\n');
      for (String s : searches) {
        b.append(String.format(Locale.ROOT, "%-44s", s));
        names.forEach(n -> b.append(String.format(Locale.ROOT, " %14s", dec(medians.get(n).get(s)))));
        b.append('\n');
      }
    }
    for (String n : notes) {
      b.append("note: ").append(n).append('\n');
    }
    for (Row r : rows) {
      if (!r.notes().isEmpty()) {
        b.append("note: backend ").append(r.backend()).append(": ").append(r.notes()).append(".\n");
      }
    }
    return b.toString();
  }

  static String duration(Double seconds) {
    if (seconds == null || seconds.isNaN()) {
      return "-";
    }
    if (seconds < 60) {
      return String.format(Locale.ROOT, "%.1f s", seconds);
    }
    long s = Math.round(seconds);
    return s < 3600 ? String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60)
        : String.format(Locale.ROOT, "%d h %02d min", s / 3600, (s % 3600) / 60);
  }

  static String bytes(Long n) {
    if (n == null) {
      return "-";
    }
    double b = n;
    String[] units = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1000 && u < units.length - 1) {
      b /= 1000;
      u++;
    }
    return String.format(Locale.ROOT, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  }

  private static String dec(Double d) {
    return d == null || d.isNaN() ? "-" : String.format(Locale.ROOT, "%.1f", d);
  }

  private static String whole(Double d) {
    return d == null || d.isNaN() ? "-" : String.format(Locale.ROOT, "%,d", Math.round(d));
  }

  // ---------------------------------------------------------------- as a report section

  /** The section of report.html, its ids prefixed with {@code prefix}. */
  public Section section(String prefix) {
    List<Block> blocks = new ArrayList<>();
    blocks.add(new Paragraph("Seed 004's comparison, generated: per backend the time from the first send to the"
        + " count that found every acknowledged line, lines per second over that time, the bytes the backend"
        + " reports it stores per acknowledged line beside the dataset's raw bytes per line, write-to-visible"
        + " latency of sampled batches, lines lost and duplicated (verify), and the median time of each search"
        + " (query). The seed's own figures, measured by hand for a month of 712,743,010 lines, are the last"
        + " rows. " + INGEST + " says where each stored size comes from."));
    notes.forEach(n -> blocks.add(Notice.info(n)));
    List<Column> cols = new ArrayList<>(List.of(Column.text("backend"), Column.text("kind"),
        Column.text("ingest"), Column.number("lines/s"), Column.number("stored bytes"), Column.number("bytes/line"),
        Column.number("raw bytes/line"), Column.number("visible p50 ms"), Column.number("visible p95 ms"),
        Column.number("visible max ms"), Column.text("verdict"), Column.number("lost"),
        Column.number("duplicated")));
    List<List<Object>> out = new ArrayList<>();
    for (Row r : rows) {
      out.add(Arrays.asList(r.backend(), r.kind(), duration(r.ingestSeconds()), round(r.linesPerSecond(), 0),
          r.storedBytes(), round(r.bytesPerLine(), 1), round(r.rawBytesPerLine(), 1), r.visibleP50Ms(),
          r.visibleP95Ms(), r.visibleMaxMs(), r.verdict(), r.lost(), r.duplicated()));
    }
    for (Reference s : SEED_004) {
      out.add(Arrays.asList(s.name(), "", duration(s.seconds()), round(s.linesPerSecond(), 0), (long) s.bytes(),
          round(s.bytesPerLine(), 1), null, null, null, null, s.note(), null, null));
    }
    blocks.add(new Table(prefix + "comparison-table", "Ingest, footprint, visibility and losses", cols, out,
        "Visible: from each sampled batch's answer to the first poll that found all its lines."));
    if (!searches.isEmpty()) {
      List<String> names = new ArrayList<>(medians.keySet());
      List<Column> qc = new ArrayList<>(List.of(Column.text("search")));
      names.forEach(n -> qc.add(Column.number(n + " median ms")));
      List<List<Object>> qr = new ArrayList<>();
      for (String s : searches) {
        List<Object> row = new ArrayList<>(List.of(s));
        names.forEach(n -> row.add(medians.get(n).get(s)));
        qr.add(row);
      }
      blocks.add(new Table(prefix + "comparison-searches", "Search medians (" + QUERIES + ")", qc, qr, ""));
    }
    for (Row r : rows) {
      if (!r.notes().isEmpty()) {
        blocks.add(Notice.info("Backend " + r.backend() + ": " + r.notes() + "."));
      }
    }
    return new Section(prefix + "comparison", "Comparison (seed 004's table)", blocks);
  }

  private static Double round(Double d, int decimals) {
    if (d == null || d.isNaN()) {
      return null;
    }
    double f = Math.pow(10, decimals);
    return Math.round(d * f) / f;
  }
}
