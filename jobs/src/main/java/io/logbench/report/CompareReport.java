package io.logbench.report;

import io.logbench.report.ReportDocument.Block;
import io.logbench.report.ReportDocument.Chart;
import io.logbench.report.ReportDocument.Column;
import io.logbench.report.ReportDocument.Notice;
import io.logbench.report.ReportDocument.Paragraph;
import io.logbench.report.ReportDocument.Section;
import io.logbench.report.ReportDocument.Table;
import io.logbench.report.RunReport.Named;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Two runs side by side, as Elastic Rally's {@code compare} puts a baseline and a contender: one
 * table of metrics per backend (lines, losses, latency percentiles, achieved rate per ladder step,
 * count queries) with the difference, a chart of both runs' latency percentiles and ladder rates,
 * then each run's own sections.
 */
public final class CompareReport {

  private CompareReport() {}

  /**
   * One metric of one backend in both runs.
   *
   * @param unit {@code lines}, {@code ms}, {@code lines/s}, {@code windows} or {@code queries}
   */
  record Metric(String metric, String backend, Double baseline, Double contender, String unit) {}

  /** The comparison of {@code baseline} with {@code contender}. */
  public static ReportDocument document(RunData baseline, RunData contender, Versions versions) {
    List<Section> sections = new ArrayList<>();
    List<Named> runs = List.of(new Named("A: ", baseline), new Named("B: ", contender));
    List<Block> blocks = new ArrayList<>();
    blocks.add(new Paragraph("Baseline (A): " + baseline.where() + ". Contender (B): "
        + contender.where() + ". Diff is B - A; for lost, duplicated and not"
        + " acknowledged lines and for latencies lower is better, for rates higher is better."));
    if (!baseline.verified() || !contender.verified()) {
      String which = baseline.verified() ? "Run B has" : contender.verified() ? "Run A has" : "Neither run has";
      blocks.add(Notice.info(which + " no verdicts yet (verify has not run on it): lost and duplicated lines and"
          + " windows not OK are left empty where verdicts are missing."));
    }
    List<Metric> metrics = metrics(baseline, contender);
    List<List<Object>> rows = new ArrayList<>();
    for (Metric m : metrics) {
      Double diff = m.baseline() == null || m.contender() == null ? null : m.contender() - m.baseline();
      String pct = diff == null || m.baseline() == 0 ? "" : String.format(Locale.ROOT, "%+.1f%%",
          100 * diff / m.baseline());
      rows.add(Arrays.asList(m.metric(), m.backend(), round(m.baseline()), round(m.contender()), round(diff), pct,
          m.unit()));
    }
    blocks.add(new Table("compare-table", "Baseline (A) vs contender (B)", List.of(Column.text("metric"),
        Column.text("backend"), Column.number("A"), Column.number("B"), Column.number("diff"),
        Column.text("diff %"), Column.text("unit")), rows, ""));
    Chart latency = RunReport.latencyProfile("compare-latency", runs);
    if (latency != null) {
      blocks.add(latency);
    }
    if (baseline.steps() != null || contender.steps() != null) {
      blocks.add(RunReport.stepsChart("compare-steps", runs));
    }
    sections.add(new Section("compare", "Comparison", blocks));
    for (Section s : RunReport.sections(baseline, "a-", versions)) {
      sections.add(new Section(s.id(), "A: " + s.title(), s.blocks()));
    }
    for (Section s : RunReport.sections(contender, "b-", versions)) {
      sections.add(new Section(s.id(), "B: " + s.title(), s.blocks()));
    }
    return new ReportDocument("logbench compare: " + baseline.name() + " vs " + contender.name(),
        "A " + RunReport.subtitle(baseline) + " — B " + RunReport.subtitle(contender),
        RunReport.browserZone(baseline.zone()), sections);
  }

  /** Every metric either run has, per backend either run has. */
  static List<Metric> metrics(RunData a, RunData b) {
    Map<String, BackendWindows> wa = BackendWindows.of(a);
    Map<String, BackendWindows> wb = BackendWindows.of(b);
    LinkedHashSet<String> backends = new LinkedHashSet<>(a.backends());
    backends.addAll(b.backends());
    List<Metric> out = new ArrayList<>();
    for (String backend : backends) {
      BackendWindows x = wa.get(backend);
      BackendWindows y = wb.get(backend);
      out.add(new Metric("expected lines", backend, x == null ? null : (double) x.expected(),
          y == null ? null : (double) y.expected(), "lines"));
      out.add(new Metric("acked lines", backend, acked(x), acked(y), "lines"));
      out.add(new Metric("not acked lines", backend, x == null ? null : (double) x.notAcked(),
          y == null ? null : (double) y.notAcked(), "lines"));
      out.add(windowMetric("lost lines", backend, x, y, BackendWindows::lost));
      out.add(windowMetric("duplicated lines", backend, x, y, BackendWindows::duplicated));
      out.add(windowMetric("windows not OK", backend, x, y, w -> w.verifiedWindows() - w.byStatus().get("OK")));
      out.add(new Metric("mean acked lines/s", backend, meanRate(a, x), meanRate(b, y), "lines/s"));
      for (String column : latencyColumns(a, b)) {
        out.add(new Metric(column.replace("_ms", "") + " latency", backend, summary(a, backend, column),
            summary(b, backend, column), "ms"));
      }
      for (String step : steps(a, b, backend)) {
        out.add(new Metric("achieved rate, step " + step, backend, step(a, backend, step), step(b, backend, step),
            "lines/s"));
      }
      Metric queries = new Metric("mean count query", backend, meanQuery(a, backend), meanQuery(b, backend), "ms");
      if (queries.baseline() != null || queries.contender() != null) {
        out.add(queries);
      }
    }
    return out;
  }

  private static Metric windowMetric(String name, String backend, BackendWindows x, BackendWindows y,
      Function<BackendWindows, Long> f) {
    // a backend without verdicts (not verified, or skipped) has no such count
    return new Metric(name, backend, x == null || x.verifiedWindows() == 0 ? null : (double) f.apply(x),
        y == null || y.verifiedWindows() == 0 ? null : (double) f.apply(y),
        name.startsWith("windows") ? "windows" : "lines");
  }

  private static Double acked(BackendWindows w) {
    return w == null ? null : (double) w.windows().stream().mapToLong(v -> v.acked() == null ? 0 : v.acked()).sum();
  }

  private static Double meanRate(RunData d, BackendWindows w) {
    var start = d.runLong("runStartMillis");
    var end = d.runLong("finishedMillis");
    Double acked = acked(w);
    if (acked == null || start.isEmpty() || end.isEmpty() || end.get() <= start.get()) {
      return null;
    }
    return acked / ((end.get() - start.get()) / 1000.0);
  }

  private static List<String> latencyColumns(RunData a, RunData b) {
    LinkedHashSet<String> cols = new LinkedHashSet<>();
    for (RunData d : List.of(a, b)) {
      if (d.summary() != null) {
        d.summary().header().stream().filter(c -> c.matches("(p\\d+(\\.\\d+)?|max|mean)_ms")).forEach(cols::add);
      }
    }
    return List.copyOf(cols);
  }

  private static Double summary(RunData d, String backend, String column) {
    if (d.summary() == null) {
      return null;
    }
    List<List<String>> rows = d.summary().where("backend", backend);
    return rows.isEmpty() ? null : d.summary().number(rows.get(0), column);
  }

  private static List<String> steps(RunData a, RunData b, String backend) {
    LinkedHashSet<String> steps = new LinkedHashSet<>();
    for (RunData d : List.of(a, b)) {
      if (d.steps() != null) {
        d.steps().where("backend", backend).forEach(r -> steps.add(d.steps().get(r, "step")));
      }
    }
    return List.copyOf(steps);
  }

  private static Double step(RunData d, String backend, String step) {
    if (d.steps() == null) {
      return null;
    }
    for (List<String> r : d.steps().where("backend", backend)) {
      if (d.steps().get(r, "step").equals(step)) {
        return d.steps().number(r, "achieved_rate");
      }
    }
    return null;
  }

  private static Double meanQuery(RunData d, String backend) {
    CsvTable s = d.verifyStats();
    if (s == null) {
      return null;
    }
    for (List<String> r : s.where("backend", backend)) {
      Double q = s.number(r, "queries");
      Double ms = s.number(r, "query_ms");
      if (q != null && ms != null && q > 0) {
        return ms / q;
      }
    }
    return null;
  }

  private static Double round(Double d) {
    return d == null ? null : Math.round(d * 10) / 10.0;
  }
}
