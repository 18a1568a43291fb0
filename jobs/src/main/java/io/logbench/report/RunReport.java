package io.logbench.report;

import io.logbench.report.BackendWindows.Window;
import io.logbench.report.ReportDocument.Axis;
import io.logbench.report.ReportDocument.Block;
import io.logbench.report.ReportDocument.Chart;
import io.logbench.report.ReportDocument.Column;
import io.logbench.report.ReportDocument.Heading;
import io.logbench.report.ReportDocument.Notice;
import io.logbench.report.ReportDocument.Paragraph;
import io.logbench.report.ReportDocument.Preformatted;
import io.logbench.report.ReportDocument.Section;
import io.logbench.report.ReportDocument.Series;
import io.logbench.report.ReportDocument.Table;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The sections of one run's report, built from its {@link RunData}. Each section is a method that
 * turns files into blocks; a section whose file is absent says so instead of failing, and columns
 * or statuses this class does not know are shown as they are.
 */
public final class RunReport {

  /** Most rows of a long table (non-OK windows, drill-down ids) put into the page. */
  static final int MAX_ROWS = 500;

  static final String EXPECTED_COLOR = "#8a8f98";
  static final String ACKED_COLOR = "#2f6fde";
  static final String OBSERVED_COLOR = "#1a9b5a";
  static final String LOST_COLOR = "#d62728";
  static final String DUPLICATED_COLOR = "#ff7f0e";
  static final String REPLAYED_COLOR = "#9467bd";
  static final String NOT_ACKED_COLOR = "#9467bd";
  /** Colours of backends (and of other statuses' marks), in turn. */
  static final List<String> PALETTE = List.of("#2f6fde", "#1a9b5a", "#d62728", "#ff7f0e", "#9467bd",
      "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f");

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss xxx");
  private static final java.util.Set<String> ID_COLUMNS = java.util.Set.of("seq", "id", "step");
  private static final Pattern LATENCY_COLUMN = Pattern.compile("(p\\d+(\\.\\d+)?|max|mean)_ms");

  private final RunData data;
  private final String prefix;
  private final Map<String, BackendWindows> windows;

  private RunReport(RunData data, String prefix) {
    this.data = data;
    this.prefix = prefix;
    this.windows = BackendWindows.of(data);
  }

  /** The report of one run. */
  public static ReportDocument document(RunData data, Versions versions) {
    List<Section> sections = new ArrayList<>(sections(data, "", versions));
    return new ReportDocument("logbench run " + data.name(), subtitle(data), browserZone(data.zone()), sections);
  }

  /**
   * The sections of one run, their ids prefixed with {@code prefix} (so that two runs fit one
   * page).
   */
  static List<Section> sections(RunData data, String prefix, Versions versions) {
    RunReport r = new RunReport(data, prefix);
    List<Section> out = new ArrayList<>();
    out.add(r.overview());
    out.add(r.windowsSection());
    out.add(r.verdicts());
    out.add(r.drillDown());
    out.add(r.latency());
    out.add(Comparison.of(data).section(prefix));
    r.steps().ifPresent(out::add);
    out.add(r.failures());
    out.add(r.countQueries());
    r.searches().ifPresent(out::add);
    out.add(r.configuration());
    out.add(r.versions(versions));
    out.add(r.files());
    return out;
  }

  static String subtitle(RunData data) {
    StringBuilder s = new StringBuilder(data.where());
    data.runLong("runStartMillis").ifPresent(t -> s.append(" · started ").append(time(t, data.zone())));
    data.runLong("lines").ifPresent(n -> s.append(" · ").append(String.format(Locale.ROOT, "%,d", n))
        .append(" lines"));
    return s.toString();
  }

  static String time(long millis, ZoneId zone) {
    return Instant.ofEpochMilli(millis).atZone(zone).format(TIME);
  }

  /** A zone the browser knows: region ids as they are, whole-hour offsets as Etc/GMT∓N, else UTC. */
  static String browserZone(ZoneId zone) {
    if (!(zone instanceof java.time.ZoneOffset off)) {
      return zone.getId();
    }
    int seconds = off.getTotalSeconds();
    if (seconds == 0 || seconds % 3600 != 0) {
      return "UTC";
    }
    int hours = seconds / 3600;
    // POSIX sign: Etc/GMT+3 is three hours behind UTC
    return "Etc/GMT" + (hours > 0 ? "-" : "+") + Math.abs(hours);
  }

  private String id(String name) {
    return prefix + name;
  }

  // ---------------------------------------------------------------- overview

  private Section overview() {
    List<Block> blocks = new ArrayList<>();
    if (data.run() == null && data.ledger().isEmpty()) {
      blocks.add(Notice.warn("This directory holds no run.json and no ledger: is it a run directory of"
          + " logbench generate?"));
    }
    if (!data.verified()) {
      blocks.add(Notice.info("No verdicts yet: verify has not run on this run directory (verdicts.csv is"
          + " absent), so nothing here says whether the backends hold the lines they acknowledged. Run"
          + " logbench verify with this run file and --run-dir to add them; it rewrites this report."));
    }
    Optional<Double> seconds = wallSeconds();
    List<Column> cols = new ArrayList<>(List.of(Column.text("backend"), Column.text("mode"),
        Column.number("expected"), Column.number("acked"), Column.number("not acked"),
        Column.number("windows"), Column.status("verdict"), Column.number("lost"),
        Column.number("duplicated")));
    if (seconds.isPresent()) {
      cols.add(Column.number("acked/s"));
    }
    List<List<Object>> rows = new ArrayList<>();
    for (String b : data.backends()) {
      BackendWindows w = windows.get(b);
      List<String> sum = summaryRow(b);
      Long expected = w != null ? Long.valueOf(w.expected()) : longCell(data.summary(), sum, "expected_lines");
      Long acked = w != null ? ackedTotal(w) : longCell(data.summary(), sum, "acked");
      List<Object> row = new ArrayList<>();
      row.add(b);
      row.add(sum == null ? "" : data.summary().get(sum, "mode"));
      row.add(expected);
      row.add(acked);
      row.add(expected == null || acked == null ? null : Math.max(0, expected - acked));
      row.add(w == null ? null : w.windows().size());
      row.add(verdictOf(b, w));
      // a backend verify skipped (or not reached) has no verdict, so no count of lost lines
      boolean judged = w != null && w.verifiedWindows() > 0;
      row.add(judged ? w.lost() : null);
      row.add(judged ? w.duplicated() : null);
      if (seconds.isPresent()) {
        row.add(acked == null ? null : Math.round(acked / seconds.get() * 10) / 10.0);
      }
      rows.add(row);
      String skipped = skippedReason(b);
      if (skipped != null) {
        blocks.add(Notice.info("Backend " + b + " was not verified: " + skipped + "."));
      }
      if (w != null && data.verified()) {
        if (w.lost() > 0) {
          blocks.add(Notice.bad("Backend " + b + " lost " + count(w.lost()) + " acknowledged line(s) in "
              + w.byStatus().get("MISSING") + " window(s): see the verdicts and the missing ids below."));
        }
        if (w.duplicated() > 0) {
          blocks.add(Notice.bad("Backend " + b + " holds " + count(w.duplicated()) + " line(s) more than it"
              + " acknowledged, in " + w.byStatus().get("DUPLICATE") + " window(s)."));
        }
        if (w.replayed() > 0) {
          blocks.add(Notice.info("Backend " + b + " holds " + count(w.replayed()) + " copies that logbench itself"
              + " sent again after a restore, in " + w.byStatus().get("REPLAYED") + " window(s) (REPLAYED): at-least-once"
              + " replay, not a backend fault; restores.jsonl says which batches."));
        }
        if (w.byStatus().get("PENDING") > 0) {
          blocks.add(Notice.warn("Backend " + b + " did not answer for " + w.byStatus().get("PENDING")
              + " window(s) (PENDING): nothing is known about them."));
        }
      }
    }
    blocks.add(new Table(id("overview-table"), "Lines per backend", cols, rows,
        seconds.isPresent() ? "acked/s: acknowledged lines over the run's wall time, from its scheduled"
            + " start to the end of generate (" + String.format(Locale.ROOT, "%.1f", seconds.get()) + " s)." : ""));
    return new Section(id("overview"), "Overview", blocks);
  }

  private static Long ackedTotal(BackendWindows w) {
    return w.windows().stream().mapToLong(x -> x.acked() == null ? 0 : x.acked()).sum();
  }

  private Optional<Double> wallSeconds() {
    Optional<Long> start = data.runLong("runStartMillis");
    Optional<Long> end = data.runLong("finishedMillis");
    if (start.isEmpty() || end.isEmpty() || end.get() <= start.get()) {
      return Optional.empty();
    }
    return Optional.of((end.get() - start.get()) / 1000.0);
  }

  private String verdictOf(String backend, BackendWindows w) {
    if (skippedReason(backend) != null) {
      return "skipped"; // the reason is in a notice above the table
    }
    if (!data.verified()) {
      return "not verified yet";
    }
    if (w == null || w.verifiedWindows() == 0) {
      return "no verdict";
    }
    List<String> bad = new ArrayList<>();
    w.byStatus().forEach((s, n) -> {
      if (n > 0 && !s.equals("OK")) {
        bad.add(s + " " + n);
      }
    });
    return bad.isEmpty() ? "OK" : String.join(", ", bad);
  }

  private String skippedReason(String backend) {
    CsvTable s = data.verifyStats();
    if (s == null) {
      return null;
    }
    for (List<String> row : s.where("backend", backend)) {
      if (!s.get(row, "skipped").isEmpty()) {
        return s.get(row, "skipped");
      }
    }
    return null;
  }

  private List<String> summaryRow(String backend) {
    if (data.summary() == null) {
      return null;
    }
    List<List<String>> rows = data.summary().where("backend", backend);
    return rows.isEmpty() ? null : rows.get(0);
  }

  private static Long longCell(CsvTable t, List<String> row, String column) {
    if (t == null || row == null) {
      return null;
    }
    Double d = t.number(row, column);
    return d == null ? null : Math.round(d);
  }

  // ---------------------------------------------------------------- lines per window

  private Section windowsSection() {
    List<Block> blocks = new ArrayList<>();
    blocks.add(new Paragraph("Lines per window: expected (the dataset and schedule), acknowledged (the"
        + " ledger) and observed (counted back in the backend by verify). Marks on the right axis: lines"
        + " lost (acknowledged, not found), lines duplicated (found more often than acknowledged), lines not"
        + " acknowledged (rejected or never sent), and the difference observed - acked for any other"
        + " status."));
    if (windows.isEmpty()) {
      blocks.add(Notice.info("No ledger rows and no verdicts: there are no windows to draw."));
    }
    for (BackendWindows w : windows.values()) {
      blocks.add(windowChart(w));
    }
    return new Section(id("windows"), "Lines per window", blocks);
  }

  private Chart windowChart(BackendWindows w) {
    List<Double> x = new ArrayList<>();
    List<Double> expected = new ArrayList<>();
    List<Double> acked = new ArrayList<>();
    List<Double> observed = new ArrayList<>();
    List<Double> lost = new ArrayList<>();
    List<Double> dup = new ArrayList<>();
    List<Double> replayed = new ArrayList<>();
    List<Double> notAcked = new ArrayList<>();
    Map<String, List<Double>> other = new LinkedHashMap<>();
    for (Window win : w.windows()) {
      if (win.status() != null && !BackendWindows.KNOWN_STATUSES.contains(win.status())) {
        other.computeIfAbsent(win.status(), s -> new ArrayList<>());
      }
    }
    for (Window win : w.windows()) {
      x.add(win.startMillis() / 1000.0);
      expected.add((double) win.expected());
      acked.add(win.acked() == null ? null : (double) win.acked());
      observed.add(win.observed() == null ? null : (double) win.observed());
      lost.add(win.lost() > 0 ? (double) win.lost() : null);
      dup.add(win.duplicated() > 0 ? (double) win.duplicated() : null);
      replayed.add(win.replayed() > 0 ? (double) win.replayed() : null);
      notAcked.add(win.notAcked() > 0 ? (double) win.notAcked() : null);
      other.forEach((status, values) -> values.add(status.equals(win.status()) && win.observed() != null
          && win.acked() != null ? (double) (win.observed() - win.acked()) : null));
    }
    List<Series> series = new ArrayList<>(List.of(
        new Series("expected", "lines", "band", EXPECTED_COLOR, expected),
        new Series("acked", "lines", "line", ACKED_COLOR, acked)));
    if (data.verified()) {
      series.add(new Series("observed", "lines", "line", OBSERVED_COLOR, observed));
      series.add(new Series("lost", "marks", "points", LOST_COLOR, lost));
      series.add(new Series("duplicated", "marks", "points", DUPLICATED_COLOR, dup));
      series.add(new Series("replayed", "marks", "points", REPLAYED_COLOR, replayed));
    }
    series.add(new Series("not acked", "marks", "points", NOT_ACKED_COLOR, notAcked));
    int k = 0;
    for (Map.Entry<String, List<Double>> e : other.entrySet()) {
      series.add(new Series(e.getKey() + " (observed - acked)", "marks", "points",
          PALETTE.get((5 + k++) % PALETTE.size()), e.getValue()));
    }
    String note = data.verified() ? "" : "Not verified yet: no observed counts.";
    return new Chart(id("windows-" + w.backend()), "Backend " + w.backend(), "time", "window start", List.of(), x,
        List.of(new Axis("lines", "lines per window", "left", false),
            new Axis("marks", "lines lost / duplicated / replayed / not acked", "right", false)),
        series, note);
  }

  // ---------------------------------------------------------------- verdicts

  private Section verdicts() {
    List<Block> blocks = new ArrayList<>();
    CsvTable v = data.verdicts();
    if (v == null) {
      blocks.add(Notice.info("No verdicts yet: verify has not run on this run directory."));
      return new Section(id("verdicts"), "Verdicts", blocks);
    }
    blocks.add(new Paragraph("Windows by status, per backend (OK: observed = acked = expected; MISSING:"
        + " observed < acked; DUPLICATE: observed > acked; REPLAYED: observed > acked by copies a restore sent"
        + " again; REJECTED: observed = acked < expected, the rest"
        + " refused or not sent; PENDING: no answer). Lines: lost = acked - observed in MISSING windows,"
        + " duplicated = lines beyond the acknowledged in DUPLICATE windows, not acked = expected -"
        + " acked over all windows."));
    TreeSet<String> unknown = new TreeSet<>();
    windows.values().forEach(w -> w.byStatus().keySet().stream()
        .filter(s -> !BackendWindows.KNOWN_STATUSES.contains(s)).forEach(unknown::add));
    List<String> statuses = new ArrayList<>(BackendWindows.KNOWN_STATUSES);
    statuses.addAll(unknown);
    List<Column> cols = new ArrayList<>(List.of(Column.text("backend"), Column.number("windows")));
    statuses.forEach(s -> cols.add(Column.number(s)));
    cols.addAll(Column.of("number", "lost lines", "duplicated lines", "not acked lines"));
    List<List<Object>> rows = new ArrayList<>();
    for (BackendWindows w : windows.values()) {
      if (w.verifiedWindows() == 0) {
        continue;
      }
      List<Object> row = new ArrayList<>(List.of(w.backend(), w.verifiedWindows()));
      Map<String, Long> by = w.byStatus();
      statuses.forEach(s -> row.add(by.getOrDefault(s, 0L)));
      row.addAll(List.of(w.lost(), w.duplicated(), w.notAcked()));
      rows.add(row);
    }
    blocks.add(new Table(id("verdict-table"), "Windows by status", cols, rows, ""));
    List<List<String>> notOk = v.rows().stream().filter(r -> !v.get(r, "status").equals("OK")).toList();
    if (notOk.isEmpty()) {
      blocks.add(Notice.info("Every window of every checked backend is OK."));
    } else {
      blocks.add(fileTable(id("not-ok-windows"), "Windows that are not OK (" + count(notOk.size()) + ")", v,
          notOk, notOk.size()));
    }
    return new Section(id("verdicts"), "Verdicts", blocks);
  }

  // ---------------------------------------------------------------- drill-down

  private Section drillDown() {
    List<Block> blocks = new ArrayList<>();
    CsvTable m = data.missing();
    if (m == null) {
      blocks.add(Notice.info("No drill-down yet: verify has not run on this run directory."));
      return new Section(id("missing"), "Missing and duplicated ids", blocks);
    }
    blocks.add(new Paragraph("For each MISSING or DUPLICATE window, verify reads the sequence ids back and"
        + " lists those not found (missing), found more than once (duplicate, with how often) or outside the"
        + " window's range (unexpected); a note row says when a list is partial. Rejected lines are among the"
        + " missing ids: the ledger counts rejections per window, not per line."));
    if (m.totalRows() == 0) {
      blocks.add(Notice.info("No id is missing or duplicated."));
      return new Section(id("missing"), "Missing and duplicated ids", blocks);
    }
    // counted over the whole file while it was read: only its first rows are kept
    Map<List<String>, Long> kinds = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    kinds.putAll(m.counts());
    List<List<Object>> rows = new ArrayList<>();
    kinds.forEach((k, n) -> rows.add(List.of(k.get(0), k.get(1), n)));
    blocks.add(new Table(id("missing-kinds"), "Rows by backend and kind", List.of(Column.text("backend"),
        Column.text("kind"), Column.number("rows")), rows, ""));
    blocks.add(fileTable(id("missing-ids"), "Ids (" + m.name() + ")", m, m.rows(), m.totalRows()));
    return new Section(id("missing"), "Missing and duplicated ids", blocks);
  }

  // ---------------------------------------------------------------- latency

  private Section latency() {
    List<Block> blocks = new ArrayList<>();
    CsvTable s = data.summary();
    if (s == null) {
      blocks.add(Notice.info("No latency: summary.csv is absent (generate has not finished on this run"
          + " directory)."));
      return new Section(id("latency"), "Latency", blocks);
    }
    blocks.add(new Paragraph("Latency of each batch from its scheduled time to its final answer (retries"
        + " included, so a late or slow backend shows here; no coordinated omission), over the whole run,"
        + " from summary.csv."));
    Chart profile = latencyProfile(id("latency-profile"), List.of(new Named("", data)));
    if (profile != null) {
      blocks.add(profile);
    }
    blocks.add(fileTable(id("summary-table"), "Per backend (summary.csv)", s, s.rows(), s.totalRows()));
    return new Section(id("latency"), "Latency", blocks);
  }

  /** A run with the prefix its series get in a comparison ("" for one run). */
  record Named(String label, RunData data) {}

  /** Percentile columns of summary.csv as categories, one series per backend (and run). */
  static Chart latencyProfile(String chartId, List<Named> runs) {
    List<String> columns = new ArrayList<>();
    for (Named n : runs) {
      if (n.data().summary() != null) {
        n.data().summary().header().stream().filter(c -> LATENCY_COLUMN.matcher(c).matches())
            .filter(c -> !columns.contains(c)).forEach(columns::add);
      }
    }
    if (columns.isEmpty()) {
      return null;
    }
    List<Double> x = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      x.add((double) i);
    }
    List<Series> series = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      CsvTable s = runs.get(i).data().summary();
      if (s == null) {
        continue;
      }
      int k = 0;
      for (List<String> row : s.rows()) {
        List<Double> values = new ArrayList<>();
        for (String c : columns) {
          Double d = s.number(row, c);
          values.add(d == null || d <= 0 ? null : d); // a log scale has no zero
        }
        // the same colour for a backend in both runs of a comparison; the second run dashed
        series.add(new Series(runs.get(i).label() + s.get(row, "backend"), "ms", i == 0 ? "line" : "dashed",
            PALETTE.get(k++ % PALETTE.size()), values));
      }
    }
    return new Chart(chartId, "Latency percentiles (ms, log scale)", "category", "percentile",
        columns.stream().map(c -> c.replace("_ms", "")).toList(), x,
        List.of(new Axis("ms", "ms from the scheduled time", "left", true)), series,
        "A point is left out where the latency is 0 ms (a log scale has no zero).");
  }

  // ---------------------------------------------------------------- ladder steps

  private Optional<Section> steps() {
    CsvTable s = data.steps();
    if (s == null) {
      return Optional.empty();
    }
    List<Block> blocks = new ArrayList<>();
    blocks.add(new Paragraph("Achieved rate per ladder step: acknowledged lines whose scheduled time falls"
        + " in the step's hold, over the hold's seconds, against the step's target rate (steps.csv)."));
    blocks.add(stepsChart(id("steps"), List.of(new Named("", data))));
    blocks.add(fileTable(id("steps-table"), "Steps (steps.csv)", s, s.rows(), s.totalRows()));
    return Optional.of(new Section(id("steps"), "Ladder steps", blocks));
  }

  /** Target rate (dashed) and each backend's achieved rate per step. */
  static Chart stepsChart(String chartId, List<Named> runs) {
    TreeSet<Integer> steps = new TreeSet<>();
    Map<Integer, Double> target = new TreeMap<>();
    for (Named n : runs) {
      CsvTable s = n.data().steps();
      if (s == null) {
        continue;
      }
      for (List<String> row : s.rows()) {
        Double step = s.number(row, "step");
        if (step != null) {
          steps.add(step.intValue());
          Double t = s.number(row, "target_rate");
          if (t != null) {
            target.putIfAbsent(step.intValue(), t);
          }
        }
      }
    }
    List<Integer> order = new ArrayList<>(steps);
    List<Double> x = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < order.size(); i++) {
      x.add((double) i);
      Double t = target.get(order.get(i));
      labels.add("step " + order.get(i) + (t == null ? "" : String.format(Locale.ROOT, " (%,.0f/s)", t)));
    }
    List<Series> series = new ArrayList<>();
    series.add(new Series("target", "rate", "band", EXPECTED_COLOR,
        order.stream().map(target::get).toList()));
    // stream().toList() keeps nulls: a step a backend has no row for is a gap
    for (int i = 0; i < runs.size(); i++) {
      Named n = runs.get(i);
      CsvTable s = n.data().steps();
      if (s == null) {
        continue;
      }
      int k = 0;
      for (String backend : s.distinct("backend")) {
        Map<Integer, Double> achieved = new TreeMap<>();
        for (List<String> row : s.where("backend", backend)) {
          Double step = s.number(row, "step");
          if (step != null) {
            achieved.put(step.intValue(), s.number(row, "achieved_rate"));
          }
        }
        series.add(new Series(n.label() + backend + " achieved", "rate", i == 0 ? "line" : "dashed",
            PALETTE.get(k++ % PALETTE.size()), order.stream().map(achieved::get).toList()));
      }
    }
    return new Chart(chartId, "Achieved vs target rate", "category", "step", labels, x,
        List.of(new Axis("rate", "lines/s", "left", false)), series, "");
  }

  // ---------------------------------------------------------------- failures

  private Section failures() {
    List<Block> blocks = new ArrayList<>();
    blocks.add(new Paragraph("Lines not acknowledged, by reason: an HTTP status (e.g. 400, 413, 503), a"
        + " client error, aborted (a load test crossed a threshold) or not sent. From summary.csv's failures,"
        + " else from the ledger's rejected reasons."));
    List<List<Object>> rows = new ArrayList<>();
    CsvTable s = data.summary();
    if (s != null && s.has("failures")) {
      for (List<String> row : s.rows()) {
        reasons(s.get(row, "failures"), ";").forEach((r, n) -> rows.add(List.of(s.get(row, "backend"), r, n)));
      }
    } else {
      Map<String, Map<String, Long>> byBackend = new LinkedHashMap<>();
      data.ledger().forEach(e -> e.rejected().forEach((r, n) ->
          byBackend.computeIfAbsent(e.backend(), b -> new TreeMap<>()).merge(r, n, Long::sum)));
      byBackend.forEach((b, m) -> m.forEach((r, n) -> rows.add(List.of(b, r, n))));
    }
    if (rows.isEmpty()) {
      blocks.add(Notice.info(s == null && data.ledger().isEmpty() ? "Nothing to show: no summary.csv and no"
          + " ledger." : "Every line sent was acknowledged: no failure."));
    } else {
      blocks.add(new Table(id("failures-table"), "Lines not acknowledged", List.of(Column.text("backend"),
          Column.text("reason"), Column.number("lines")), rows, ""));
    }
    CsvTable steps = data.steps();
    if (steps != null && steps.has("failures")) {
      List<List<Object>> perStep = new ArrayList<>();
      for (List<String> row : steps.rows()) {
        reasons(steps.get(row, "failures"), ";").forEach((r, n) -> perStep.add(List.of(steps.get(row, "backend"),
            steps.get(row, "step"), r, n)));
      }
      if (!perStep.isEmpty()) {
        blocks.add(new Table(id("failures-steps"), "By ladder step", List.of(Column.text("backend"),
            Column.text("step"), Column.text("reason"), Column.number("lines")), perStep, ""));
      }
    }
    return new Section(id("failures"), "Failures by status", blocks);
  }

  /** {@code reason=count} pairs joined by {@code separator}; a pair without a count is left out. */
  static Map<String, Long> reasons(String cell, String separator) {
    Map<String, Long> out = new TreeMap<>();
    for (String pair : cell.split(Pattern.quote(separator))) {
      int eq = pair.lastIndexOf('=');
      if (eq > 0) {
        try {
          out.merge(pair.substring(0, eq).strip(), Long.parseLong(pair.substring(eq + 1).strip()), Long::sum);
        } catch (NumberFormatException e) {
          // not a count: not a failure pair
        }
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- count queries

  private Section countQueries() {
    List<Block> blocks = new ArrayList<>();
    CsvTable s = data.verifyStats();
    if (s != null) {
      blocks.add(new Paragraph("The count queries verify made to each backend (bucketed counts, drill-downs"
          + " and rechecks), and their time (verify-stats.csv)."));
      List<List<Object>> rows = new ArrayList<>();
      for (List<String> row : s.rows()) {
        Double q = s.number(row, "queries");
        Double ms = s.number(row, "query_ms");
        rows.add(Arrays.asList(s.get(row, "backend"), num(s.number(row, "windows_checked")), num(q), num(ms),
            q == null || ms == null || q == 0 ? null : (Object) (Math.round(ms / q * 10) / 10.0),
            s.get(row, "skipped")));
      }
      blocks.add(new Table(id("queries-table"), "Count queries", List.of(Column.text("backend"),
          Column.number("windows checked"), Column.number("queries"), Column.number("total ms"),
          Column.number("mean ms"), Column.text("skipped")), rows, ""));
    } else if (data.verifySummary() == null) {
      blocks.add(Notice.info("No count queries yet: verify has not run on this run directory."));
    }
    if (data.verifySummary() != null) {
      blocks.add(new Preformatted("verify's summary (verify-summary.txt)", data.verifySummary()));
    }
    return new Section(id("queries"), "Count queries", blocks);
  }

  /** The searches {@code query} ran (queries.csv), when it ran; absent otherwise. */
  private Optional<Section> searches() {
    String file = io.logbench.query.QueryFiles.QUERIES;
    try {
      if (!data.dir().exists(file)) {
        return Optional.empty();
      }
    } catch (java.io.IOException e) {
      return Optional.empty();
    }
    List<Block> blocks = new ArrayList<>();
    CsvTable s;
    try {
      s = CsvTable.read(data.dir(), file, Integer.MAX_VALUE, List.of());
    } catch (java.io.IOException e) {
      blocks.add(Notice.warn("queries.csv could not be read: " + e.getMessage()));
      return Optional.of(new Section(id("searches"), "Searches", blocks));
    }
    long wrong = s.rows().stream().filter(r -> !"OK".equals(s.get(r, "status"))).count();
    blocks.add(wrong == 0 ? new Paragraph("The case study's searches, run by logbench query on every backend in its"
        + " own language (queries.csv): every cell of every answer equals the exact answer. Times are the first"
        + " (cold) run, then the median and worst of the others.")
        : Notice.warn(wrong + " search(es) answered wrong cells or failed; query-mismatches.csv names the cells."));
    List<List<Object>> rows = new ArrayList<>();
    for (List<String> row : s.rows()) {
      rows.add(Arrays.asList(s.get(row, "backend"), s.get(row, "language"), s.get(row, "search"),
          num(s.number(row, "buckets")), num(s.number(row, "cells")), num(s.number(row, "wrong_cells")),
          s.get(row, "status"), num(s.number(row, "cold_ms")), num(s.number(row, "median_ms")),
          num(s.number(row, "worst_ms")), num(s.number(row, "requests"))));
    }
    blocks.add(new Table(id("searches-table"), "Searches", List.of(Column.text("backend"), Column.text("language"),
        Column.text("search"), Column.number("buckets"), Column.number("cells"), Column.number("wrong cells"),
        Column.text("status"), Column.number("cold ms"), Column.number("median ms"), Column.number("worst ms"),
        Column.number("requests")), rows, ""));
    return Optional.of(new Section(id("searches"), "Searches", blocks));
  }

  private static Object num(Double d) {
    if (d == null) {
      return null;
    }
    return d == Math.rint(d) ? (Object) d.longValue() : d;
  }

  // ---------------------------------------------------------------- configuration and versions

  private Section configuration() {
    List<Block> blocks = new ArrayList<>();
    RunFile f = data.runFile();
    if (f == null) {
      blocks.add(Notice.info("The run file could not be read (see Files below): nothing to show."));
    } else {
      blocks.add(new Paragraph("The run file " + f.path() + ", with every secret masked: values of keys named"
          + " like password, token, secret, jaas or authorization, and passwords in URLs. *_env and *_file"
          + " keys and {env: NAME} / {file: PATH} blocks are shown, since they say where a secret is, not"
          + " what it is; ${NAME} references are shown unresolved. Comments are not kept."));
      if (!f.maskedKeys().isEmpty()) {
        blocks.add(Notice.info("Masked: " + String.join(", ", f.maskedKeys()) + "."));
      }
      blocks.add(new Preformatted(f.path().getFileName().toString(), f.maskedYaml()));
    }
    if (data.run() != null) {
      List<List<Object>> rows = new ArrayList<>();
      data.run().properties().forEach(p -> rows.add(List.of(p.getKey(), p.getValue().isTextual()
          ? SecretMask.maskUrls(p.getValue().asText()) : p.getValue().toString())));
      blocks.add(new Table(id("run-json"), "run.json", List.of(Column.text("key"), Column.text("value")), rows, ""));
    }
    return new Section(id("config"), "Configuration", blocks);
  }

  private Section versions(Versions v) {
    List<List<Object>> rows = new ArrayList<>();
    data.runText("logbenchVersion").ifPresent(s -> rows.add(List.of("logbench that ran generate", s)));
    data.runText("flinkVersion").ifPresent(s -> rows.add(List.of("Flink that ran generate", s)));
    rows.add(Arrays.asList("logbench that rendered this report", v.logbench()));
    rows.add(Arrays.asList("Flink logbench was built against", v.flinkBuilt()));
    rows.add(Arrays.asList("Flink on the class path while rendering", v.flinkRuntime()));
    rows.add(Arrays.asList("uPlot (charts, inlined)", v.uplot()));
    List<Block> blocks = new ArrayList<>();
    if (data.runText("logbenchVersion").isEmpty()) {
      blocks.add(Notice.info("run.json does not say which logbench and Flink ran generate (an older"
          + " logbench wrote it)."));
    }
    blocks.add(new Table(id("versions-table"), "Versions", List.of(Column.text("component"),
        Column.text("version")), rows, ""));
    return new Section(id("versions"), "Versions", blocks);
  }

  private Section files() {
    List<List<Object>> rows = new ArrayList<>();
    data.files().forEach(f -> rows.add(List.of(f.name(), f.state(), f.detail())));
    return new Section(id("files"), "Files", List.of(new Paragraph("The files of " + data.where()
        + " this report was made from."), new Table(id("files-table"), "Files",
        List.of(Column.text("file"), Column.status("state"), Column.text("what")), rows, "")));
  }

  // ---------------------------------------------------------------- helpers

  /**
   * A table of a file's rows with every column of the file (those this report does not know
   * too); numbers right-aligned; at most {@link #MAX_ROWS} rows.
   *
   * @param total how many rows there are in all, {@code rows} being the first of them
   */
  static Table fileTable(String id, String caption, CsvTable t, List<List<String>> rows, long total) {
    List<Column> cols = new ArrayList<>();
    for (String h : t.header()) {
      // ids and step numbers are names, not quantities: no digit grouping
      boolean numeric = !ID_COLUMNS.contains(h) && !rows.isEmpty() && rows.stream().allMatch(r -> {
        String c = r.get(t.column(h));
        return c.isEmpty() || CsvTable.number(c) != null;
      }) && rows.stream().anyMatch(r -> !r.get(t.column(h)).isEmpty());
      cols.add(new Column(h, h.equals("status") ? "status" : numeric ? "number" : "text"));
    }
    List<List<Object>> out = new ArrayList<>();
    for (List<String> r : rows.subList(0, Math.min(rows.size(), MAX_ROWS))) {
      List<Object> row = new ArrayList<>();
      for (int i = 0; i < r.size(); i++) {
        row.add(cols.get(i).kind().equals("number") ? num(CsvTable.number(r.get(i))) : r.get(i));
      }
      out.add(row);
    }
    String note = total > out.size() ? "The first " + out.size() + " of " + count(total) + " rows;"
        + " the others are in " + t.name() + "." : "";
    return new Table(id, caption, cols, out, note);
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
