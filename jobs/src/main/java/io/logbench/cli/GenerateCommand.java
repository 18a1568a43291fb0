package io.logbench.cli;

import io.logbench.config.ConfigException;
import io.logbench.job.BackendSummary;
import io.logbench.job.FlinkEnvironments;
import io.logbench.job.GenerateJob;
import io.logbench.job.StepRow;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.ledger.RunSummary;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunIds;
import io.logbench.plan.RunPlan;
import io.logbench.replay.ReplayFiles;
import io.logbench.report.Reports;
import io.logbench.report.Versions;
import io.logbench.sink.DeliverySettings.Mode;
import io.logbench.sink.LatencyHistogram;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import io.logbench.sink.ThresholdBreach;
import io.logbench.sink.Footprint;
import io.logbench.visibility.IngestRow;
import io.logbench.visibility.VisibilityReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code generate CONFIG [--run-dir DIR]}: runs the generate job (one pipeline per backend) on
 * the cluster it was submitted to, or in-process, then prints each backend's totals and, for a
 * ladder, one row per step, and writes {@code summary.csv}, {@code steps.csv} and, last, {@code
 * report.html} to the run directory. {@code run.json} (the run's start) is written before the job, so {@code verify
 * --continuous} can follow the run. Exit code 0 when every at-least-once backend acknowledged
 * every line and no load test crossed a threshold; 1 otherwise, with the reason.
 */
@Command(name = "generate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = {
      "Send the run to every backend of CONFIG (one pipeline each, on Flink), print per-backend"
          + " totals and ladder steps, and write the ledger, summary.csv and steps.csv to the run"
          + " directory.",
      "Exits 1 when an at-least-once backend did not acknowledge every line or a load test crossed"
          + " a threshold."
    })
final class GenerateCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "CONFIG", description = "The run file.")
  Path file;

  @Option(names = "--run-dir", paramLabel = "DIR", description = "Where the run's files go (default: the run file's run.dir).")
  Path runDirOption;

  @Option(names = "--quiet", description = "No progress lines while the job runs.")
  boolean quiet;

  @Mixin PrometheusOption prometheus = new PrometheusOption();

  private final PrintStream out;
  private final PrintStream err;

  GenerateCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /**
   * {@code run.json}: what the verifier and the report need to know of this run besides its run
   * file; {@code finishedMillis} (when generate ended, or null while it runs) gives the report the
   * run's wall time. Written through a temporary file and moved into place, so a continuous verify
   * that starts as soon as the file exists never reads half of it.
   */
  static void writeRunJson(Path runDir, Path configFile, RunPlan plan, long runStartMillis, String runId,
      Long finishedMillis)
      throws java.io.IOException {
    java.util.Map<String, Object> run = new java.util.LinkedHashMap<>();
    run.put("name", plan.config().name());
    run.put("runId", runId);
    run.put("config", configFile.toAbsolutePath().toString());
    run.put("runStartMillis", runStartMillis);
    run.put("firstIndex", plan.firstIndex());
    run.put("lines", plan.lines());
    run.put("windowMillis", plan.config().window().toMillis());
    run.put("zone", plan.config().zone().getId());
    Versions versions = Versions.current();
    run.put("logbenchVersion", versions.logbench());
    run.put("flinkVersion", versions.flinkRuntime());
    if (finishedMillis != null) {
      run.put("finishedMillis", finishedMillis);
    }
    Path tmp = runDir.resolve("run.json.tmp");
    new com.fasterxml.jackson.databind.ObjectMapper()
        .writerWithDefaultPrettyPrinter()
        .writeValue(tmp.toFile(), run);
    Files.move(tmp, runDir.resolve("run.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public Integer call() throws Exception {
    org.apache.flink.configuration.Configuration metrics = prometheus.configuration("generate");
    RunConfig config = ConfigLoader.load(file);
    if (config.backends().isEmpty()) {
      throw new ConfigException(file + ": backends: missing; expected a list of backend blocks, such as"
          + " [{kind: discard}], for generate to send to.");
    }
    Path runDir = runDirOption != null ? runDirOption : config.runDir();
    RunPlan plan = RunPlan.of(config);
    // the checks see the run as if it started now; its real start is fixed once they are done
    long now = System.currentTimeMillis();
    long[] span = plan.span(now + GenerateJob.DEFAULT_START_LEAD.toMillis());
    String runId = RunIds.create(config.name(), now, new java.security.SecureRandom());
    RunContext run = new RunContext(runId, plan.dataset().streams(), plan.dataset(), plan.firstIndex());
    Preflight before = Preflight.of(run, span, config.window().toMillis(), config.zone(), span[0], now);
    for (var b : config.backends()) {
      try {
        for (String warning : b.spec().preflight(before)) {
          err.println("generate: warning: " + warning);
        }
      } catch (java.io.IOException e) {
        throw new IllegalStateException("Backend " + b.name() + " is not ready: " + e.getMessage());
      }
    }
    // the start is fixed and run.json written before the job, so a continuous verify can follow
    // the run while it goes
    long runStart = System.currentTimeMillis() + GenerateJob.DEFAULT_START_LEAD.toMillis();
    GenerateJob job = GenerateJob.of(plan).runDir(runDir).runStartMillis(runStart).runId(runId);
    Files.createDirectories(runDir);
    writeRunJson(runDir, file, plan, runStart, runId, null);
    if (plan.published() != null) {
      err.println("generate: lines read from " + plan.published() + " (published " + plan.published().manifest()
          .publishedAt() + "), one reading per backend");
    }
    err.printf(Locale.ROOT, "generate: run %s, %s lines to %d backend(s): %s%n", runId, Format.count(plan.lines()),
        config.backends().size(), String.join(", ", config.backends().stream().map(b -> b.name()
            + " (" + b.spec().kind() + ", " + b.delivery().mode().key() + ")").toList()));
    long t0 = System.nanoTime();
    GenerateJob.Result result;
    try (Progress progress = Progress.start(Progress.mode(quiet, err), err, new GenerateProgress("generate",
        plan.schedule(), plan.lines(), runStart, job::progress, System::currentTimeMillis))) {
      result = job.run(FlinkEnvironments.create(config.parallelism(), metrics));
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    writeRunJson(runDir, file, plan, runStart, runId, System.currentTimeMillis());

    List<LedgerEntry> ledger = new ArrayList<>();
    for (var b : config.backends()) {
      ledger.addAll(LedgerFiles.read(runDir.resolve("ledger").resolve(b.name())));
    }
    LedgerFiles.writeCsv(runDir, ledger, config.zone());
    RunSummary ledgerSummary = RunSummary.of(ledger);
    ledgerSummary.write(runDir);
    printTotals(result, out);
    out.println();
    out.println("ledger (" + runDir.resolve(LedgerFiles.CSV) + "):");
    out.print(ledgerSummary.table());
    Files.writeString(runDir.resolve("summary.csv"), summaryCsv(result));
    List<StepRow> steps = new ArrayList<>();
    result.backends().forEach(b -> steps.addAll(b.steps()));
    if (!steps.isEmpty()) {
      printSteps(steps, out);
      writeSteps(runDir.resolve("steps.csv"), steps);
    }
    List<IngestRow> ingest = ingestRows(config, plan, run, result);
    printIngest(ingest, out);
    writeIngest(runDir.resolve(IngestRow.FILE), ingest);
    for (ThresholdBreach b : result.breaches()) {
      out.println("aborted: " + b.describe());
    }
    out.printf(Locale.ROOT, "ran %.1f s; wrote %s, %s%s%n", seconds, runDir.resolve("summary.csv"),
        runDir.resolve(IngestRow.FILE), steps.isEmpty() ? "" : " and " + runDir.resolve("steps.csv"));
    // the report is a view of the files above: failing to draw it is a warning, not a failed run
    Reports.refresh(runDir, "generate", out, err);
    List<String> why = reasons(result);
    if (why.isEmpty()) {
      return 0;
    }
    for (String w : why) {
      err.println("generate: " + w);
    }
    return 1;
  }

  /** Why the run failed, one sentence per backend; empty when it did not. */
  static List<String> reasons(GenerateJob.Result result) {
    List<String> why = new ArrayList<>();
    for (BackendSummary b : result.backends()) {
      if (b.mode() == Mode.AT_LEAST_ONCE && !b.allAcked()) {
        why.add("backend " + b.backend() + " acknowledged " + Format.count(b.acked()) + " of "
            + Format.count(b.expectedLines()) + " lines" + failedText(b.failed()) + ".");
      }
    }
    for (ThresholdBreach t : result.breaches()) {
      why.add("backend " + t.backend() + " was aborted: " + t.threshold() + " (" + t.observed() + ").");
    }
    return why;
  }

  private static String failedText(Map<String, Long> failed) {
    if (failed.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder("; not acknowledged: ");
    failed.forEach((r, n) -> b.append(b.toString().endsWith(": ") ? "" : ", ").append(r).append(' ').append(Format.count(n)));
    return b.toString();
  }

  private static String ms(long micros) {
    return String.format(Locale.ROOT, "%.1f", micros / 1000.0);
  }

  static void printTotals(GenerateJob.Result result, PrintStream out) {
    out.printf(Locale.ROOT, "%-16s %-13s %12s %12s %9s %9s %9s %9s %9s  %-20s  %s%n", "backend", "mode", "lines",
        "acked", "requests", "p50 ms", "p95 ms", "p99 ms", "max ms", "resent by cause", "failed by status");
    for (BackendSummary b : result.backends()) {
      LatencyHistogram h = b.latencyMicros();
      out.printf(Locale.ROOT, "%-16s %-13s %12s %12s %9s %9s %9s %9s %9s  %-20s  %s%n", b.backend(),
          b.mode().key(), Format.count(b.lines()), Format.count(b.acked()), Format.count(b.requests()),
          ms(h.percentile(50)), ms(h.percentile(95)), ms(h.percentile(99)), ms(h.max()),
          b.resentRequests().isEmpty() ? "-" : pairs(b.resentRequests(), " "),
          b.failed().isEmpty() ? "-" : failedText(b.failed()).substring("; not acknowledged: ".length()));
    }
    out.println("(latency from each batch's scheduled time to its final answer; requests include resends)");
    for (BackendSummary b : result.backends()) {
      if (b.replays().restores() > 0) {
        out.printf(Locale.ROOT, "restored: backend %s, %d source task(s) restored; sent again %s batch(es), %s"
            + " line(s) the failed attempt may have sent (see %s)%n", b.backend(), b.replays().restores(),
            Format.count(b.replays().batches()), Format.count(b.replays().lines()), ReplayFiles.RESTORES);
      }
    }
  }

  /** {@code key=value} pairs joined by {@code separator}. */
  private static String pairs(Map<String, Long> m, String separator) {
    StringBuilder b = new StringBuilder();
    m.forEach((k, v) -> b.append(b.length() == 0 ? "" : separator).append(k).append('=').append(v));
    return b.toString();
  }

  static String summaryCsv(GenerateJob.Result result) {
    StringBuilder csv = new StringBuilder("backend,mode,expected_lines,lines,acked,requests,p50_ms,p95_ms,p99_ms,"
        + "max_ms,failures,resent_requests,resent_lines\n");
    for (BackendSummary b : result.backends()) {
      LatencyHistogram h = b.latencyMicros();
      StringBuilder f = new StringBuilder();
      b.failed().forEach((r, n) -> f.append(f.length() == 0 ? "" : ";").append(r).append('=').append(n));
      String failures = f.toString().contains(",") ? "\"" + f.toString().replace("\"", "\"\"") + "\"" : f.toString();
      csv.append(String.join(",", b.backend(), b.mode().key(), Long.toString(b.expectedLines()),
          Long.toString(b.lines()), Long.toString(b.acked()), Long.toString(b.requests()),
          ms(h.percentile(50)), ms(h.percentile(95)), ms(h.percentile(99)), ms(h.max()), failures,
          pairs(b.resentRequests(), ";"), pairs(b.resentLines(), ";"))).append('\n');
    }
    return csv.toString();
  }

  /** Lines whose bytes are measured for the raw bytes per line: enough for a steady mean, quickly made. */
  static final long RAW_SAMPLE_LINES = 200_000;

  /**
   * The dataset's bytes per line as the seed's files hold them (the line and its newline), over
   * the run's first {@value #RAW_SAMPLE_LINES} lines (all of them in a shorter run).
   */
  static double rawBytesPerLine(RunPlan plan) {
    long n = Math.min(plan.lines(), RAW_SAMPLE_LINES);
    if (n == 0) {
      return Double.NaN;
    }
    return (double) plan.dataset().byteSize(plan.firstIndex(), plan.firstIndex() + n) / n + 1;
  }

  /**
   * Each backend's ingest figures: its summary's first send and last answer, its visibility
   * polls, and what it says it stores, read now (after the run).
   */
  static List<IngestRow> ingestRows(RunConfig config, RunPlan plan, RunContext run, GenerateJob.Result result) {
    double raw = rawBytesPerLine(plan);
    List<IngestRow> rows = new ArrayList<>();
    for (var b : config.backends()) {
      BackendSummary s = result.backends().stream().filter(x -> x.backend().equals(b.name())).findFirst()
          .orElse(null);
      List<String> notes = new ArrayList<>();
      Footprint footprint = null;
      try {
        footprint = b.spec().footprint(run).orElse(null);
        if (footprint == null) {
          notes.add("the " + b.spec().kind() + " backend reports no stored size");
        }
      } catch (IOException | RuntimeException e) {
        notes.add("its stored size could not be read: " + e.getMessage());
      }
      VisibilityReport v = result.visibility().get(b.name());
      String skipped = result.visibilitySkipped().get(b.name());
      if (skipped != null) {
        notes.add("visibility not polled: " + skipped);
      }
      if (v != null && !v.lastLineNote().isEmpty()) {
        notes.add("last line not timed: " + v.lastLineNote());
      }
      long first = s == null || s.firstScheduledNanos() == Long.MAX_VALUE ? 0 : s.firstScheduledNanos();
      rows.add(new IngestRow(b.name(), b.spec().kind(), s == null ? 0 : s.acked(), first,
          s == null ? 0 : s.lastAnswerNanos(), v == null ? 0 : v.lastVisibleNanos(), footprint, raw, v,
          String.join("; ", notes)));
    }
    return rows;
  }

  static void printIngest(List<IngestRow> rows, PrintStream out) {
    out.printf(Locale.ROOT, "%n%-16s %9s %9s %11s %10s %8s %8s %8s  %-24s  %s%n", "backend", "acked s", "ingest s",
        "lines/s", "stored", "B/line", "raw B/l", "samples", "visible ms from ack", "from schedule");
    for (IngestRow r : rows) {
      VisibilityReport v = r.visibility();
      out.printf(Locale.ROOT, "%-16s %9s %9s %11s %10s %8s %8s %8s  %-24s  %s%n", r.backend(),
          secs(r.ackSeconds()), secs(r.ingestSeconds()),
          Double.isNaN(r.linesPerSecond()) ? "-" : Format.count(Math.round(r.linesPerSecond())),
          r.footprint() == null ? "-" : Format.bytes(r.footprint().bytes()),
          Double.isNaN(r.bytesPerLine()) ? "-" : String.format(Locale.ROOT, "%.1f", r.bytesPerLine()),
          Double.isNaN(r.rawBytesPerLine()) ? "-" : String.format(Locale.ROOT, "%.1f", r.rawBytesPerLine()),
          v == null ? "-" : v.visible() + "/" + v.sampled(),
          v == null ? "-" : triple(v.fromAckMicros()), v == null ? "-" : triple(v.fromScheduleMicros()));
    }
    out.println("(acked s: first send to last answer; ingest s: first send to the count that found every acked line;"
        + " lines/s over ingest s; B/line: bytes the backend reports stored per acked line, beside the dataset's raw"
        + " bytes per line; visible: p50/p95/max of sampled batches, from their answer and from their scheduled"
        + " time)");
    for (IngestRow r : rows) {
      if (!r.notes().isEmpty()) {
        out.println("note: backend " + r.backend() + ": " + r.notes() + ".");
      }
    }
  }

  private static String secs(double s) {
    return Double.isNaN(s) ? "-" : String.format(Locale.ROOT, "%.1f", s);
  }

  private static String triple(LatencyHistogram h) {
    return h.count() == 0 ? "-" : ms(h.percentile(50)) + "/" + ms(h.percentile(95)) + "/" + ms(h.max());
  }

  static void writeIngest(Path file, List<IngestRow> rows) throws IOException {
    StringBuilder csv = new StringBuilder(IngestRow.CSV_HEADER).append('\n');
    rows.forEach(r -> csv.append(r.csv()).append('\n'));
    Files.writeString(file, csv);
  }

  static void printSteps(List<StepRow> rows, PrintStream out) {
    out.printf(Locale.ROOT, "%n%-16s %4s %10s %10s %9s %9s %9s %9s  %s%n", "backend", "step", "target/s",
        "achieved/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "failed by status");
    for (StepRow r : rows) {
      out.printf(Locale.ROOT, "%-16s %4d %10s %10s %9s %9s %9s %9s  %s%n", r.backend(), r.step(),
          Format.count(r.targetRate()), Format.count(Math.round(r.achievedRate())), ms(r.p50Micros()),
          ms(r.p95Micros()), ms(r.p99Micros()), ms(r.maxMicros()),
          r.failures().isEmpty() ? "-" : r.failuresText());
    }
  }

  static void writeSteps(Path file, List<StepRow> rows) throws IOException {
    StringBuilder csv = new StringBuilder(StepRow.CSV_HEADER).append('\n');
    rows.forEach(r -> csv.append(r.csv()).append('\n'));
    Files.writeString(file, csv);
  }
}
