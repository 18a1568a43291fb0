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

/**
 * Seed 004's comparison table, generated from one or more run directories: per backend the ingest
 * time and rate, bytes stored per line beside the dataset's raw bytes per line, write-to-visible
 * latency ({@value #INGEST}, written by generate), lines lost and duplicated ({@code verdicts.csv},
 * by verify), each search's cold, median and worst time and whether every answer was exact
 * ({@value #QUERIES}, by query), and the servers' settings when whoever started them wrote
 * {@value #SERVERS}, with the seed's own hand-made figures as a reference. Printed by {@code
 * logbench compare} and shown in the report.
 *
 * @param rows one per backend of each run
 * @param searches the searches of {@value #QUERIES}, in file order; empty without the file
 * @param timings each search's times by row label ({@link Row#label()}), then search
 * @param settings the rows of {@value #SERVERS}, by run (empty without the file)
 * @param notes what is missing and why, full sentences
 */
public record Comparison(List<Row> rows, List<String> searches, Map<String, Map<String, Timing>> timings,
    List<Setting> settings, List<String> notes) {

  /** generate's per-backend ingest, footprint and visibility figures. */
  public static final String INGEST = "ingest.csv";

  /** query's timings of the seed's searches. */
  public static final String QUERIES = "queries.csv";

  /**
   * The servers' settings, {@code backend,setting,value}, written by whoever started the servers
   * (deploy/bench/seed004-day.sh does); logbench itself cannot know them.
   */
  public static final String SERVERS = "servers.csv";

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
   * One backend's figures from generate's {@value #INGEST}; null where unknown.
   *
   * @param visibleFromScheduleP50Ms the median write-to-visible latency from each batch's scheduled time
   */
  public record Ingest(Long ackedLines, Double ingestSeconds, Double ackSeconds, Double linesPerSecond,
      Long storedBytes, Double bytesPerLine, Double rawBytesPerLine, Double visibleP50Ms, Double visibleP95Ms,
      Double visibleMaxMs, Double visibleFromScheduleP50Ms) {

    static final Ingest NONE = new Ingest(null, null, null, null, null, null, null, null, null, null, null);
  }

  /**
   * What verify found for one backend.
   *
   * @param verdict the windows' statuses ("OK 1440", "MISSING 2, OK 178") or why there is none
   * @param lost lines acknowledged and not found, null before verify
   * @param duplicated lines found more often than acknowledged, null before verify
   */
  public record Losses(String verdict, Long lost, Long duplicated) {}

  /**
   * One backend of one run.
   *
   * @param run the run directory's name when the comparison holds several runs, else empty
   * @param answers whether query's answers were exact, e.g. "12 of 12 searches exact", or "-"
   */
  public record Row(String run, String backend, String kind, Ingest ingest, Losses losses, String answers,
      String notes) {

    /** The row's name in the tables: {@code run/backend}, or the backend alone for one run. */
    public String label() {
      return run.isEmpty() ? backend : run + "/" + backend;
    }
  }

  /**
   * One search of one backend, from {@value #QUERIES}.
   *
   * @param status {@code OK}, {@code WRONG} or {@code FAILED}
   * @param wrongCells wrong cells of the worst answer
   */
  public record Timing(Double coldMs, Double medianMs, Double worstMs, String status, long wrongCells, long cells) {

    /** {@code cold/median/worst} in whole ms, and the status when not OK. */
    String text() {
      String t = whole(coldMs) + "/" + whole(medianMs) + "/" + whole(worstMs);
      return status.equals("OK") || status.isEmpty() ? t : t + " " + status;
    }
  }

  /** One row of {@value #SERVERS}: a setting of one server of one run. */
  public record Setting(String run, String backend, String setting, String value) {}

  /** The comparison of the run directory {@code data} was read from. */
  public static Comparison of(RunData data) {
    return of(List.of(data));
  }

  /**
   * The comparison of several runs in one table (the rows named {@code run/backend}, the run
   * being its directory's name), as deploy/bench/seed004-day.sh prints the runs of each backend
   * alone and the fan-out.
   */
  public static Comparison of(List<RunData> runs) {
    List<Row> rows = new ArrayList<>();
    List<String> searches = new ArrayList<>();
    Map<String, Map<String, Timing>> timings = new LinkedHashMap<>();
    List<Setting> settings = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    for (RunData data : runs) {
      String run = runs.size() == 1 ? "" : data.dir().name();
      List<String> own = new ArrayList<>();
      read(data, run, rows, searches, timings, settings, own);
      own.forEach(n -> notes.add(run.isEmpty() ? n : "Run " + run + ": " + n));
    }
    return new Comparison(rows, searches, timings, settings, notes);
  }

  private static void read(RunData data, String run, List<Row> rows, List<String> searches,
      Map<String, Map<String, Timing>> timings, List<Setting> settings, List<String> notes) {
    CsvTable ingest = read(data.dir(), INGEST, notes, "No ingest figures: " + INGEST + " is absent"
        + " (generate has not finished here, or an older logbench ran it).");
    CsvTable queries = read(data.dir(), QUERIES, notes, "No search timings: " + QUERIES + " is absent;"
        + " run logbench query with this run file and --run-dir to add them.");
    CsvTable servers = read(data.dir(), SERVERS, new ArrayList<>(), "");
    if (!data.verified()) {
      notes.add("No losses: verify has not run here (verdicts.csv is absent); run logbench verify to add them.");
    }
    if (queries != null && !(queries.has("backend") && queries.has("median_ms"))) {
      notes.add(QUERIES + " has no backend or median_ms column (its columns: " + String.join(", ",
          queries.header()) + "): its timings are not shown.");
      queries = null;
    }
    Map<String, BackendWindows> windows = BackendWindows.of(data);
    Set<String> backends = new LinkedHashSet<>();
    if (ingest != null) {
      backends.addAll(ingest.distinct("backend"));
    }
    backends.addAll(data.backends());
    backends.remove("");
    for (String b : backends) {
      List<String> r = ingest == null ? null : ingest.where("backend", b).stream().findFirst().orElse(null);
      BackendWindows w = windows.get(b);
      boolean judged = w != null && w.verifiedWindows() > 0;
      Ingest figures = r == null ? Ingest.NONE : new Ingest(asLong(ingest.number(r, "acked_lines")),
          ingest.number(r, "ingest_s"), ingest.number(r, "ack_s"), ingest.number(r, "lines_per_s"),
          asLong(ingest.number(r, "stored_bytes")), ingest.number(r, "bytes_per_line"),
          ingest.number(r, "raw_bytes_per_line"), ingest.number(r, "visible_from_ack_p50_ms"),
          ingest.number(r, "visible_from_ack_p95_ms"), ingest.number(r, "visible_from_ack_max_ms"),
          ingest.number(r, "visible_from_schedule_p50_ms"));
      Row row = new Row(run, b, cell(ingest, r, "kind"), figures,
          new Losses(verdict(data, w), judged ? w.lost() : null, judged ? w.duplicated() : null),
          queries == null ? "-" : answers(queries, queries.where("backend", b)), cell(ingest, r, "notes"));
      rows.add(row);
      if (queries != null) {
        Map<String, Timing> mine = timings.computeIfAbsent(row.label(), k -> new LinkedHashMap<>());
        for (List<String> q : queries.where("backend", b)) {
          String search = queries.has("search") ? queries.get(q, "search") : queries.get(q, "query");
          if (!searches.contains(search)) {
            searches.add(search);
          }
          mine.putIfAbsent(search, timing(queries, q));
        }
      }
    }
    if (servers != null) {
      for (List<String> s : servers.rows()) {
        settings.add(new Setting(run, servers.get(s, "backend"), servers.get(s, "setting"), servers.get(s, "value")));
      }
    }
  }

  private static Timing timing(CsvTable q, List<String> row) {
    Double wrong = q.number(row, "wrong_cells");
    Double cells = q.number(row, "cells");
    return new Timing(q.number(row, "cold_ms"), q.number(row, "median_ms"), q.number(row, "worst_ms"),
        q.get(row, "status"), wrong == null ? 0 : Math.round(wrong), cells == null ? 0 : Math.round(cells));
  }

  /**
   * Whether every search of one backend answered exactly: "12 of 12 searches exact", or which were
   * not and by how many cells.
   */
  static String answers(CsvTable q, List<List<String>> searches) {
    if (searches.isEmpty()) {
      return "no searches";
    }
    int exact = 0;
    List<String> not = new ArrayList<>();
    for (List<String> s : searches) {
      String status = q.get(s, "status");
      if (status.equals("OK")) {
        exact++;
      } else {
        not.add(q.get(s, "search") + " " + status + (status.equals("WRONG") ? " (" + q.get(s, "wrong_cells")
            + " of " + q.get(s, "cells") + " cells)" : ""));
      }
    }
    String head = exact + " of " + searches.size() + " searches exact";
    return not.isEmpty() ? head : head + "; " + String.join("; ", not);
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
        if (!absent.isEmpty()) {
          notes.add(absent);
        }
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

  private static Long asLong(Double d) {
    return d == null ? null : Math.round(d);
  }

  // ---------------------------------------------------------------- as text

  /** The table as {@code logbench compare} prints it; {@code title} names the run or runs. */
  public String text(String title) {
    StringBuilder b = new StringBuilder();
    int w = Math.max(28, rows.stream().mapToInt(r -> r.label().length()).max().orElse(0) + 1);
    String head = "%-" + w + "s %-13s %10s %12s %10s %8s %8s %21s %9s %11s  %s%n";
    b.append(rows.stream().map(Row::run).distinct().count() > 1 ? "runs " : "run ").append(title).append('\n');
    b.append(String.format(Locale.ROOT, head, "backend", "kind", "ingest", "lines/s", "stored", "B/line", "raw B/l",
        "visible p50/p95 ms", "lost", "duplicated", "answers"));
    for (Row r : rows) {
      Ingest i = r.ingest();
      b.append(String.format(Locale.ROOT, head, r.label(), r.kind().isEmpty() ? "-" : r.kind(),
          duration(i.ingestSeconds()), whole(i.linesPerSecond()), bytes(i.storedBytes()), dec(i.bytesPerLine()),
          dec(i.rawBytesPerLine()), i.visibleP50Ms() == null ? "-" : dec(i.visibleP50Ms()) + "/"
              + dec(i.visibleP95Ms()), r.losses().lost() == null ? "-" : whole(r.losses().lost().doubleValue()),
          r.losses().duplicated() == null ? "-" : whole(r.losses().duplicated().doubleValue()), r.answers()));
    }
    for (Reference s : SEED_004) {
      b.append(String.format(Locale.ROOT, head, s.name(), "", duration(s.seconds()), whole(s.linesPerSecond()),
          bytes((long) s.bytes()), dec(s.bytesPerLine()), "", "", "", "", "not checked"));
    }
    b.append("(ingest: first send to the count that found every acknowledged line; lines/s over it; stored: what the"
        + " backend reports, B/line per acknowledged line; raw B/l: the dataset's bytes per line with its newline;"
        + " visible: sampled batches, from their answer; answers: query's searches whose every cell equals the"
        + " exact answer; seed 004 rows: its month of 712,743,010 lines, by hand)\n");
    for (Row r : rows) {
      String v = r.losses().verdict();
      if (v != null && !v.isEmpty() && !v.equals("not verified")) {
        b.append("verdict: ").append(r.label()).append(": ").append(v).append('\n');
      }
    }
    if (!searches.isEmpty()) {
      b.append('\n').append("searches, ms cold/median/worst (").append(QUERIES).append("):\n");
      List<Integer> widths = new ArrayList<>();
      for (String s : searches) {
        int cw = s.length();
        for (Map<String, Timing> t : timings.values()) {
          Timing x = t.get(s);
          cw = Math.max(cw, x == null ? 1 : x.text().length());
        }
        widths.add(cw);
      }
      b.append(String.format(Locale.ROOT, "%-" + w + "s", "backend"));
      for (int i = 0; i < searches.size(); i++) {
        b.append(String.format(Locale.ROOT, "  %" + widths.get(i) + "s", searches.get(i)));
      }
      b.append('\n');
      for (Map.Entry<String, Map<String, Timing>> e : timings.entrySet()) {
        b.append(String.format(Locale.ROOT, "%-" + w + "s", e.getKey()));
        for (int i = 0; i < searches.size(); i++) {
          Timing x = e.getValue().get(searches.get(i));
          b.append(String.format(Locale.ROOT, "  %" + widths.get(i) + "s", x == null ? "-" : x.text()));
        }
        b.append('\n');
      }
    }
    if (!settings.isEmpty()) {
      b.append('\n').append("server settings (").append(SERVERS).append("):\n");
      // a setting the same in several runs is printed once, with the runs it holds for
      Map<List<String>, List<String>> runsOf = new LinkedHashMap<>();
      for (Setting s : settings) {
        runsOf.computeIfAbsent(List.of(s.backend(), s.setting(), s.value()), k -> new ArrayList<>()).add(s.run());
      }
      runsOf.forEach((k, runs) -> {
        b.append("  ").append(k.get(0)).append(' ').append(k.get(1)).append(": ").append(k.get(2));
        if (!runs.equals(List.of(""))) {
          b.append(" (").append(runs.size() == 1 ? "run " : "runs ").append(String.join(", ", runs)).append(')');
        }
        b.append('\n');
      });
    }
    for (String n : notes) {
      b.append("note: ").append(n).append('\n');
    }
    for (Row r : rows) {
      if (!r.notes().isEmpty()) {
        b.append("note: backend ").append(r.label()).append(": ").append(r.notes()).append(".\n");
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
        + " latency of sampled batches, lines lost and duplicated (verify), whether every cell of every search"
        + " equals the exact answer, and each search's cold, median and worst time (query). The seed's own"
        + " figures, measured by hand for a month of 712,743,010 lines and never checked, are the last rows. "
        + INGEST + " says where each stored size comes from."));
    notes.forEach(n -> blocks.add(Notice.info(n)));
    List<Column> cols = new ArrayList<>(List.of(Column.text("backend"), Column.text("kind"),
        Column.text("ingest"), Column.number("lines/s"), Column.number("stored bytes"), Column.number("bytes/line"),
        Column.number("raw bytes/line"), Column.number("visible p50 ms"), Column.number("visible p95 ms"),
        Column.number("visible max ms"), Column.text("verdict"), Column.number("lost"),
        Column.number("duplicated"), Column.text("answers")));
    List<List<Object>> out = new ArrayList<>();
    for (Row r : rows) {
      Ingest i = r.ingest();
      out.add(Arrays.asList(r.label(), r.kind(), duration(i.ingestSeconds()), round(i.linesPerSecond(), 0),
          i.storedBytes(), round(i.bytesPerLine(), 1), round(i.rawBytesPerLine(), 1), i.visibleP50Ms(),
          i.visibleP95Ms(), i.visibleMaxMs(), r.losses().verdict(), r.losses().lost(), r.losses().duplicated(),
          r.answers()));
    }
    for (Reference s : SEED_004) {
      out.add(Arrays.asList(s.name(), "", duration(s.seconds()), round(s.linesPerSecond(), 0), (long) s.bytes(),
          round(s.bytesPerLine(), 1), null, null, null, null, s.note(), null, null, "not checked"));
    }
    blocks.add(new Table(prefix + "comparison-table", "Ingest, footprint, visibility, losses and answers", cols,
        out, "Visible: from each sampled batch's answer to the first poll that found all its lines."));
    if (!searches.isEmpty()) {
      List<Column> qc = new ArrayList<>(List.of(Column.text("backend")));
      for (String s : searches) {
        qc.add(Column.number(s + " cold ms"));
        qc.add(Column.number(s + " median ms"));
        qc.add(Column.number(s + " worst ms"));
      }
      List<List<Object>> qr = new ArrayList<>();
      for (Map.Entry<String, Map<String, Timing>> e : timings.entrySet()) {
        List<Object> row = new ArrayList<>(List.of(e.getKey()));
        for (String s : searches) {
          Timing t = e.getValue().get(s);
          row.add(t == null ? null : t.coldMs());
          row.add(t == null ? null : t.medianMs());
          row.add(t == null ? null : t.worstMs());
        }
        qr.add(row);
      }
      blocks.add(new Table(prefix + "comparison-searches", "Searches: cold, median and worst (" + QUERIES + ")",
          qc, qr, "Cold: the first run of each search; median and worst: of the runs after it."));
    }
    if (!settings.isEmpty()) {
      List<List<Object>> sr = new ArrayList<>();
      for (Setting s : settings) {
        sr.add(Arrays.asList(s.run().isEmpty() ? s.backend() : s.run() + "/" + s.backend(), s.setting(), s.value()));
      }
      blocks.add(new Table(prefix + "comparison-settings", "Server settings (" + SERVERS + ")",
          List.of(Column.text("server"), Column.text("setting"), Column.text("value")), sr,
          "Written by whoever started the servers; logbench reads them, it cannot check them."));
    }
    for (Row r : rows) {
      if (!r.notes().isEmpty()) {
        blocks.add(Notice.info("Backend " + r.label() + ": " + r.notes() + "."));
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
