package io.logbench.cli;

import io.logbench.job.BackendSummary;
import io.logbench.job.GenerateJob;
import io.logbench.job.StepRow;
import io.logbench.ledger.LedgerFiles;
import io.logbench.ledger.RunSummary;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.replay.ReplayFiles;
import io.logbench.report.Reports;
import io.logbench.rundir.RunDir;
import io.logbench.run.GenerateRun;
import io.logbench.sink.LatencyHistogram;
import io.logbench.sink.Preflight;
import io.logbench.sink.ThresholdBreach;
import io.logbench.visibility.IngestRow;
import io.logbench.visibility.VisibilityReport;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code generate CONFIG [--run-dir DIR]}: runs the generate job (one pipeline per backend) on
 * the cluster it was submitted to, or in-process, with progress lines while it runs, then prints
 * each backend's totals, the ledger's, for a ladder one row per step, and the ingest figures.
 * What the run does around its job (run directory, resume, pre-flight checks, {@code run.json},
 * the ledger and the files it writes) is {@link GenerateRun}'s; this command keeps its options,
 * the progress, the signals and the printing, and writes {@code report.html} last. Exit code 0
 * when every at-least-once backend acknowledged every line and no load test crossed a threshold;
 * 1 otherwise, with the reason.
 *
 * <p>Ctrl-C or SIGTERM while the job runs stops it cleanly ({@link StopSignals}): the same files
 * are written for what was sent, and the exit code is 130 or 143. {@code --resume RUN_DIR}
 * continues a run killed or cancelled before its end from its newest retained checkpoint ({@link
 * io.logbench.run.ResumedRun}), with the same run id and start.
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

  @Option(names = "--run-dir", paramLabel = "DIR", description = "Where the run's files go (default: the run file's"
      + " run.dir): a path, or a URI of a Flink file system such as s3://bucket/runs/x.")
  String runDirOption;

  @Option(names = "--resume", paramLabel = "RUN_DIR", description = "Continue the run in RUN_DIR, killed or"
      + " cancelled before its end, from its newest completed checkpoint (run.checkpoint_dir), with the same run"
      + " id and start; CONFIG must be the run file it started with.")
  String resumeDir;

  @Option(names = "--quiet", description = "No progress lines while the job runs.")
  boolean quiet;

  @Option(names = "--dry-run",
      description = "Print the plan and every backend's pre-flight check, send nothing; exit 1 when a backend is not ready.")
  boolean dryRun;

  @Mixin PrometheusOption prometheus = new PrometheusOption();

  @Mixin ClusterOption cluster = new ClusterOption();

  private final PrintStream out;
  private final PrintStream err;

  GenerateCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /**
   * {@code --dry-run}: the plan, then each backend's pre-flight check (the same checks a run makes
   * before it sends: the backend answers, its topic or index is usable, its retention keeps the
   * lines, other runs' lines in the range), each ready, with warnings, or not ready; nothing is
   * sent and no run directory is written.
   */
  private int dryRun(RunConfig config, RunPlan plan, RunDir runDir, Preflight before) {
    out.println("dry run of " + file + ": nothing is sent");
    out.println("  dataset:  " + PlanCommand.describeDataset(plan));
    out.println("  schedule: " + PlanCommand.describeSchedule(plan));
    out.printf(Locale.ROOT, "  windows:  %s, zone %s; run directory %s%n",
        io.logbench.config.Durations.format(config.window()), config.zone().getId(), runDir);
    int notReady = 0;
    for (var b : config.backends()) {
      String head = String.format(Locale.ROOT, "  %-14s %s, %s: ", b.name(), b.spec().kind(), b.delivery().mode().key());
      try {
        List<String> warnings = b.spec().preflight(before);
        out.println(head + (warnings.isEmpty() ? "ready" : "ready, with " + warnings.size() + " warning(s)"));
        warnings.forEach(w -> out.println("      warning: " + w));
      } catch (java.io.IOException | RuntimeException e) {
        notReady++;
        out.println(head + "not ready: " + e.getMessage());
      }
    }
    out.println(notReady == 0 ? "every backend is ready" : notReady + " backend(s) not ready");
    return notReady == 0 ? 0 : 1;
  }

  @Override
  public Integer call() throws Exception {
    org.apache.flink.configuration.Configuration metrics = prometheus.configuration("generate");
    // in-process, the progress lines read the job's own metrics as they are now
    String liveToken = cluster.url == null ? java.util.UUID.randomUUID().toString() : null;
    if (liveToken != null) {
      metrics.addAll(io.logbench.metrics.LiveMetrics.configuration(liveToken));
    }
    ClusterOption.Jobs jobs = cluster.open("generate", metrics, err);
    RunConfig config = ConfigLoader.load(file);
    if (liveToken != null && config.dataset().published() == null) {
      // in-process, only the outcomes cross between tasks (a replay moves lines between them); the
      // in-process environment reads these settings when it is made, below
      metrics.addAll(io.logbench.job.FlinkEnvironments.smallNetworkBuffers());
    }
    GenerateRun run = GenerateRun.prepare(file, config, runDirOption, resumeDir, jobs.startLead());
    if (dryRun) {
      try (jobs) {
        return dryRun(config, run.plan(), run.runDir(), run.checks());
      }
    }
    run.preflight().forEach(this::note);
    GenerateJob job = run.start(this::note);
    RunPlan plan = run.plan();
    err.printf(Locale.ROOT, "generate: run %s, %s lines to %d backend(s): %s%n", run.runId(), Format.count(plan.lines()),
        config.backends().size(), String.join(", ", config.backends().stream().map(b -> b.name()
            + " (" + b.spec().kind() + ", " + b.delivery().mode().key() + ")").toList()));
    long t0 = System.nanoTime();
    GenerateJob.Result result;
    StopSignals signals;
    // on a cluster, Ctrl-C and SIGTERM cancel the cluster's job through the client's shutdown hook
    // (ClusterTarget); in-process they stop it with a drain, so the ledger is final
    try (jobs; Progress progress = Progress.start(Progress.mode(quiet, err), err, new GenerateProgress("generate",
        plan.schedule(), plan.lines(), run.runStartMillis(), liveToken != null
            ? GenerateProgress.fromMetrics(() -> io.logbench.metrics.LiveMetrics.forToken(liveToken),
                config.backends().stream().map(b -> b.name()).toList(), plan.lines())
            : GenerateProgress.fromOutcomes(job::progress, plan.lines()), System::currentTimeMillis));
        StopSignals s = cluster.url == null ? new StopSignals("generate", err, job::stop, StopSignals.DEFAULT_GRACE) : null) {
      signals = s;
      result = job.run(jobs.environment(config.parallelism()));
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    String signal = signals != null ? signals.received() : null;
    GenerateRun.Finished finished = run.finish(result, signal, this::note);
    RunDir runDir = run.runDir();
    RunSummary ledgerSummary = finished.ledgerSummary();
    printTotals(result, out);
    out.println();
    out.println("ledger (" + runDir.describe(LedgerFiles.CSV) + "):");
    out.print(ledgerSummary.table());
    List<StepRow> steps = finished.steps();
    if (!steps.isEmpty()) {
      printSteps(steps, out);
    }
    printIngest(finished.ingest(), out);
    for (ThresholdBreach b : result.breaches()) {
      out.println("aborted: " + b.describe());
    }
    out.printf(Locale.ROOT, "ran %.1f s; wrote %s, %s%s%n", seconds, runDir.describe(GenerateRun.SUMMARY_CSV),
        runDir.describe(IngestRow.FILE), steps.isEmpty() ? "" : " and " + runDir.describe(GenerateRun.STEPS_CSV));
    // the report is a view of the files above: failing to draw it is a warning, not a failed run
    Reports.refresh(runDir, "generate", out, err);
    if (result.ending() != GenerateJob.Ending.FINISHED) {
      RunSummary.BackendTotals least = ledgerSummary.backends().stream()
          .min(java.util.Comparator.comparingLong(RunSummary.BackendTotals::sent)).orElse(null);
      err.printf(Locale.ROOT, "generate: %s by %s before the run's end (%s); %s; the ledger is final for what was"
          + " sent, and verify reports the rest as not sent.%n", result.ending() == GenerateJob.Ending.STOPPED
          ? "stopped cleanly" : "cancelled", signal != null ? signal : "request",
          result.ending() == GenerateJob.Ending.STOPPED ? "every batch made was answered"
              : "answers in flight were not waited for, and the totals table counts only outcomes a completed"
                  + " checkpoint covered", least == null ? "nothing was sent"
              : "sent " + Format.count(least.sent()) + " of " + Format.count(least.expected()) + " lines"
                  + (ledgerSummary.backends().size() > 1 ? " (the backend that sent least)" : ""));
      return signals != null && signals.exitCode() != 0 ? signals.exitCode() : 1;
    }
    for (String w : finished.reasons()) {
      err.println("generate: " + w);
    }
    return finished.reasons().isEmpty() ? 0 : 1;
  }

  /** Prints a note of the run, as {@code generate: <note>}. */
  private void note(String note) {
    err.println("generate: " + note);
  }

  static void printTotals(GenerateJob.Result result, PrintStream out) {
    out.printf(Locale.ROOT, "%-16s %-13s %12s %12s %9s %9s %9s %9s %9s %11s  %-20s  %s%n", "backend", "mode",
        "lines", "acked", "requests", "p50 ms", "p95 ms", "p99 ms", "max ms", "req p95 ms", "resent by cause",
        "failed by status");
    for (BackendSummary b : result.backends()) {
      LatencyHistogram h = b.latencyMicros();
      out.printf(Locale.ROOT, "%-16s %-13s %12s %12s %9s %9s %9s %9s %9s %11s  %-20s  %s%n", b.backend(),
          b.mode().key(), Format.count(b.lines()), Format.count(b.acked()), Format.count(b.requests()),
          GenerateRun.ms(h.percentile(50)), GenerateRun.ms(h.percentile(95)), GenerateRun.ms(h.percentile(99)),
          GenerateRun.ms(h.max()), GenerateRun.ms(b.serviceMicros().percentile(95)),
          b.resentRequests().isEmpty() ? "-" : GenerateRun.pairs(b.resentRequests(), " "),
          b.failed().isEmpty() ? "-" : GenerateRun.failedText(b.failed()).substring("; not acknowledged: ".length()));
    }
    out.println("(latency from each batch's scheduled time to its final answer; req p95: the last request's own"
        + " time, from its send to its answer, as k6's http_req_duration; requests include resends)");
    for (BackendSummary b : result.backends()) {
      if (b.replays().restores() > 0) {
        out.printf(Locale.ROOT, "restored: backend %s, %d source task(s) restored; sent again %s batch(es), %s"
            + " line(s) the failed attempt may have sent (see %s)%n", b.backend(), b.replays().restores(),
            Format.count(b.replays().batches()), Format.count(b.replays().lines()), ReplayFiles.RESTORES);
      }
    }
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
    return h.count() == 0 ? "-" : GenerateRun.ms(h.percentile(50)) + "/" + GenerateRun.ms(h.percentile(95)) + "/" + GenerateRun.ms(h.max());
  }

  static void printSteps(List<StepRow> rows, PrintStream out) {
    out.printf(Locale.ROOT, "%n%-16s %4s %10s %10s %9s %9s %9s %9s  %s%n", "backend", "step", "target/s",
        "achieved/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "failed by status");
    for (StepRow r : rows) {
      out.printf(Locale.ROOT, "%-16s %4d %10s %10s %9s %9s %9s %9s  %s%n", r.backend(), r.step(),
          Format.count(r.targetRate()), Format.count(Math.round(r.achievedRate())), GenerateRun.ms(r.p50Micros()),
          GenerateRun.ms(r.p95Micros()), GenerateRun.ms(r.p99Micros()), GenerateRun.ms(r.maxMicros()),
          r.failures().isEmpty() ? "-" : r.failuresText());
    }
  }
}
