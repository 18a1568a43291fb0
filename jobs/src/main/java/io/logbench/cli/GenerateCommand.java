package io.logbench.cli;

import io.logbench.config.ConfigException;
import io.logbench.job.BackendSummary;
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
import io.logbench.rundir.RunDir;
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
 *
 * <p>Ctrl-C or SIGTERM while the job runs stops it cleanly ({@link StopSignals}): the same files
 * are written for what was sent, and the exit code is 130 or 143. {@code --resume RUN_DIR}
 * continues a run killed or cancelled before its end from its newest retained checkpoint ({@link
 * ResumedRun}), with the same run id and start.
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
   * {@code run.json}: what the verifier and the report need to know of this run besides its run
   * file; {@code finishedMillis} (when generate ended, or null while it runs) gives the report the
   * run's wall time. Written through a temporary file and moved into place, so a continuous verify
   * that starts as soon as the file exists never reads half of it.
   */
  static void writeRunJson(Path runDir, Path configFile, RunPlan plan, long runStartMillis, String runId,
      Long finishedMillis)
      throws java.io.IOException {
    writeRunJson(RunDir.of(runDir), configFile, plan, runStartMillis, runId, finishedMillis, Map.of());
  }

  /**
   * As {@link #writeRunJson(Path, Path, RunPlan, long, String, Long)}, in a run directory anywhere, with
   * {@code extra} fields:
   * {@code resumes} (each resume: when, from which checkpoint) and {@code stopped} (the signal
   * that stopped the run before its end, when, and how: {@code stopped} or {@code cancelled}).
   */
  static void writeRunJson(RunDir runDir, Path configFile, RunPlan plan, long runStartMillis, String runId,
      Long finishedMillis, Map<String, Object> extra)
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
    run.putAll(extra);
    runDir.write("run.json", new com.fasterxml.jackson.databind.ObjectMapper()
        .writerWithDefaultPrettyPrinter()
        .writeValueAsBytes(run));
  }

  /**
   * Writes the run directory's run.json to the runs topic of {@code run.ledger_kafka}, where
   * {@code verify --ledger-kafka} reads it with the ledger rows.
   */
  static void publishRunJson(RunConfig config, RunDir runDir, String runId) throws IOException {
    config.ledgerKafka().writeRun(runId, runDir.read("run.json"));
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
    if (config.backends().isEmpty()) {
      throw new ConfigException(file + ": backends: missing; expected a list of backend blocks, such as"
          + " [{kind: discard}], for generate to send to.");
    }
    if (resumeDir != null && runDirOption != null
        && !RunDir.of(resumeDir).absolute().equals(RunDir.of(runDirOption).absolute())) {
      throw new UsageException("--run-dir " + runDirOption + " and --resume " + resumeDir + " name two run"
          + " directories; --resume RUN_DIR alone says where the run is.");
    }
    RunDir runDir = resumeDir != null ? RunDir.of(resumeDir) : runDirOption != null ? RunDir.of(runDirOption)
        : config.runDir();
    RunPlan plan = RunPlan.of(config);
    RunDir checkpointDir = config.checkpointDir(runDir);
    ResumedRun resumed = resumeDir == null ? null : ResumedRun.of(runDir, file, config, plan, checkpointDir);
    // the checks see the run as if it started now; its real start is fixed once they are done
    long now = System.currentTimeMillis();
    long[] span = plan.span(now + jobs.startLead().toMillis());
    String runId = resumed != null ? resumed.runId() : RunIds.create(config.name(), now, new java.security.SecureRandom());
    RunContext run = new RunContext(runId, plan.dataset().streams(), plan.dataset(), plan.firstIndex());
    Preflight before = Preflight.of(run, span, config.window().toMillis(), config.zone(), span[0], now);
    if (dryRun) {
      try (jobs) {
        return dryRun(config, plan, runDir, before);
      }
    }
    // a resumed run's backends hold its own lines already, which the checks would take for another run's
    for (var b : resumed != null ? List.<io.logbench.sink.BackendConfig>of() : config.backends()) {
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
    long runStart = resumed != null ? resumed.runStartMillis()
        : System.currentTimeMillis() + jobs.startLead().toMillis();
    GenerateJob job = GenerateJob.of(plan).runDir(runDir).runStartMillis(runStart).runId(runId)
        .checkpointDir(checkpointDir);
    Map<String, Object> runExtra = new java.util.LinkedHashMap<>();
    if (resumed != null) {
      job.resumeFrom(resumed.checkpoint().dir());
      runExtra.put("resumes", resumes(resumed));
      err.println("generate: resuming run " + runId + " from checkpoint " + resumed.checkpoint().id() + " ("
          + resumed.checkpoint().dir() + "); what it sends again is recorded in "
          + ReplayFiles.in(runDir).restoresLocation());
    }
    runDir.createDirectories();
    writeRunJson(runDir, file, plan, runStart, runId, null, runExtra);
    if (config.ledgerKafka() != null) {
      try {
        config.ledgerKafka().ensureTopics();
        publishRunJson(config, runDir, runId);
      } catch (IOException e) {
        throw new IllegalStateException("The ledger's Kafka topic is not usable (run.ledger_kafka): " + e.getMessage(), e);
      }
    }
    if (plan.published() != null) {
      err.println("generate: lines read from " + plan.published() + " (published " + plan.published().manifest()
          .publishedAt() + "), one reading per backend");
    }
    err.printf(Locale.ROOT, "generate: run %s, %s lines to %d backend(s): %s%n", runId, Format.count(plan.lines()),
        config.backends().size(), String.join(", ", config.backends().stream().map(b -> b.name()
            + " (" + b.spec().kind() + ", " + b.delivery().mode().key() + ")").toList()));
    long t0 = System.nanoTime();
    GenerateJob.Result result;
    StopSignals signals;
    // on a cluster, Ctrl-C and SIGTERM cancel the cluster's job through the client's shutdown hook
    // (ClusterTarget); in-process they stop it with a drain, so the ledger is final
    try (jobs; Progress progress = Progress.start(Progress.mode(quiet, err), err, new GenerateProgress("generate",
        plan.schedule(), plan.lines(), runStart, liveToken != null
            ? GenerateProgress.fromMetrics(() -> io.logbench.metrics.LiveMetrics.forToken(liveToken),
                config.backends().stream().map(b -> b.name()).toList(), plan.lines())
            : GenerateProgress.fromOutcomes(job::progress, plan.lines()), System::currentTimeMillis));
        StopSignals s = cluster.url == null ? new StopSignals("generate", err, job::stop, StopSignals.DEFAULT_GRACE) : null) {
      signals = s;
      result = job.run(jobs.environment(config.parallelism()));
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    if (result.ending() != GenerateJob.Ending.FINISHED) {
      Map<String, Object> stopped = new java.util.LinkedHashMap<>();
      stopped.put("signal", signals != null && signals.received() != null ? signals.received() : "none");
      stopped.put("millis", System.currentTimeMillis());
      stopped.put("ending", result.ending().name().toLowerCase(Locale.ROOT));
      runExtra.put("stopped", stopped);
    }
    writeRunJson(runDir, file, plan, runStart, runId, System.currentTimeMillis(), runExtra);

    List<LedgerEntry> ledger = finalLedger(config, runDir, runId, err);
    if (result.ending() == GenerateJob.Ending.CANCELLED) {
      // a cancelled job wrote no row for windows no batch reached: they are the unsent ones
      ledger = unsentWindows(ledger, config, plan, job, runStart);
    }
    LedgerFiles.writeCsv(runDir, ledger, config.zone());
    if (config.ledgerKafka() != null) {
      try {
        if (result.ending() != GenerateJob.Ending.FINISHED) {
          // a stopped or cancelled job's Kafka sinks may not have flushed every row, and a cancelled
          // run's unsent windows are rows only the client adds: the client writes the final ledger
          config.ledgerKafka().writeRows(runId, ledger);
        }
        // last: its finishedMillis tells verify --ledger-kafka that the ledger in Kafka is complete
        publishRunJson(config, runDir, runId);
      } catch (IOException e) {
        err.println("generate: warning: the end of the run was not written to Kafka (run.ledger_kafka), so verify"
            + " --ledger-kafka will take the run for unfinished; the run directory's ledger is complete: "
            + e.getMessage());
      }
    }
    RunSummary ledgerSummary = RunSummary.of(ledger);
    ledgerSummary.write(runDir);
    printTotals(result, out);
    out.println();
    out.println("ledger (" + runDir.describe(LedgerFiles.CSV) + "):");
    out.print(ledgerSummary.table());
    runDir.writeString("summary.csv", summaryCsv(result));
    List<StepRow> steps = new ArrayList<>();
    result.backends().forEach(b -> steps.addAll(b.steps()));
    if (!steps.isEmpty()) {
      printSteps(steps, out);
      writeSteps(runDir, "steps.csv", steps);
    }
    List<IngestRow> ingest = ingestRows(config, plan, run, result);
    printIngest(ingest, out);
    writeIngest(runDir, IngestRow.FILE, ingest);
    for (ThresholdBreach b : result.breaches()) {
      out.println("aborted: " + b.describe());
    }
    out.printf(Locale.ROOT, "ran %.1f s; wrote %s, %s%s%n", seconds, runDir.describe("summary.csv"),
        runDir.describe(IngestRow.FILE), steps.isEmpty() ? "" : " and " + runDir.describe("steps.csv"));
    // the report is a view of the files above: failing to draw it is a warning, not a failed run
    Reports.refresh(runDir, "generate", out, err);
    if (result.ending() != GenerateJob.Ending.FINISHED) {
      RunSummary.BackendTotals least = ledgerSummary.backends().stream()
          .min(java.util.Comparator.comparingLong(RunSummary.BackendTotals::sent)).orElse(null);
      err.printf(Locale.ROOT, "generate: %s by %s before the run's end (%s); %s; the ledger is final for what was"
          + " sent, and verify reports the rest as not sent.%n", result.ending() == GenerateJob.Ending.STOPPED
          ? "stopped cleanly" : "cancelled", signals != null && signals.received() != null ? signals.received() : "request",
          result.ending() == GenerateJob.Ending.STOPPED ? "every batch made was answered"
              : "answers in flight were not waited for, and the totals table counts only outcomes a completed"
                  + " checkpoint covered", least == null ? "nothing was sent"
              : "sent " + Format.count(least.sent()) + " of " + Format.count(least.expected()) + " lines"
                  + (ledgerSummary.backends().size() > 1 ? " (the backend that sent least)" : ""));
      return signals != null && signals.exitCode() != 0 ? signals.exitCode() : 1;
    }
    List<String> why = resumed != null ? reasons(result, ledgerSummary) : reasons(result);
    if (why.isEmpty()) {
      return 0;
    }
    for (String w : why) {
      err.println("generate: " + w);
    }
    return 1;
  }

  /**
   * Every backend's final ledger rows: from the backend's own ledger under {@code
   * runDir/ledger/<backend>/}, which the job's tasks write; when a backend's is not there (the
   * tasks ran on other machines, without a shared run directory) and the ledger goes to Kafka
   * too, the backend's rows from Kafka, with a warning.
   *
   * @throws IOException when a backend's rows are in neither place
   */
  static List<LedgerEntry> finalLedger(RunConfig config, Path runDir, String runId, PrintStream err)
      throws IOException {
    return finalLedger(config, RunDir.of(runDir), runId, err);
  }

  /** As {@link #finalLedger(RunConfig, Path, String, PrintStream)}, for a run directory anywhere. */
  static List<LedgerEntry> finalLedger(RunConfig config, RunDir runDir, String runId, PrintStream err)
      throws IOException {
    List<LedgerEntry> ledger = new ArrayList<>();
    List<LedgerEntry> fromKafka = null;
    for (var b : config.backends()) {
      RunDir own = runDir.resolve("ledger/" + b.name());
      boolean local = own.exists(LedgerFiles.CSV) || own.exists(LedgerFiles.JSONL)
          || !own.files(LedgerFiles.SEGMENTS).isEmpty();
      if (local || config.ledgerKafka() == null) {
        ledger.addAll(LedgerFiles.read(own));
        continue;
      }
      if (fromKafka == null) {
        fromKafka = config.ledgerKafka().read(runId).rows();
      }
      List<LedgerEntry> rows = fromKafka.stream().filter(r -> r.backend().equals(b.name())).toList();
      err.println("generate: backend " + b.name() + "'s ledger is not in " + own + " (its tasks ran elsewhere);"
          + " took its " + rows.size() + " row(s) from topic " + config.ledgerKafka().topic() + " instead.");
      ledger.addAll(rows);
    }
    return ledger;
  }

  /** run.json's {@code resumes}: the earlier resumes of the run, and this one. */
  private static List<Object> resumes(ResumedRun resumed) {
    List<Object> all = new ArrayList<>();
    resumed.runJson().path("resumes").forEach(all::add);
    Map<String, Object> now = new java.util.LinkedHashMap<>();
    now.put("millis", System.currentTimeMillis());
    now.put("checkpoint", resumed.checkpoint().dir().absolute().location());
    now.put("checkpointId", resumed.checkpoint().id());
    all.add(now);
    return all;
  }

  /**
   * The rows of a cancelled run with a row added (expected, nothing sent) for each window of the
   * run no batch reached, as a drained job's ledger has them.
   */
  static List<LedgerEntry> unsentWindows(List<LedgerEntry> rows, RunConfig config, RunPlan plan, GenerateJob job,
      long runStart) {
    java.util.Set<LedgerEntry.Key> have = new java.util.HashSet<>();
    rows.forEach(r -> have.add(r.key()));
    List<LedgerEntry> out = new ArrayList<>(rows);
    var expected = plan.expectedCounts(runStart);
    long[] span = plan.span(runStart);
    var grid = io.logbench.sink.WindowGrid.aligned(config.window().toMillis(), config.zone(), job.gridAnchor());
    for (long s : io.logbench.ledger.stream.Ledger.windowStarts(grid, span[0], span[1])) {
      long e = s + grid.sizeMillis();
      long n = expected.count(s, e);
      for (var b : config.backends()) {
        if (n > 0 && !have.contains(new LedgerEntry.Key(b.name(), s))) {
          out.add(LedgerEntry.empty(b.name(), s, e, n));
        }
      }
    }
    return out;
  }

  /**
   * Why a resumed run failed: as {@link #reasons(GenerateJob.Result)}, but whether an
   * at-least-once backend acknowledged every line is the ledger's say ({@code ledger}), which covers
   * the whole run; the job's own totals cover only what the resumed attempt sent.
   */
  static List<String> reasons(GenerateJob.Result result, RunSummary ledger) {
    List<String> why = new ArrayList<>();
    for (BackendSummary b : result.backends()) {
      if (b.mode() != Mode.AT_LEAST_ONCE) {
        continue;
      }
      for (RunSummary.BackendTotals t : ledger.backends()) {
        if (t.backend().equals(b.backend()) && t.acked() < t.expected()) {
          why.add("backend " + b.backend() + " acknowledged " + Format.count(t.acked()) + " of "
              + Format.count(t.expected()) + " lines (ledger, over the whole run)" + failedText(t.rejected()) + ".");
        }
      }
    }
    for (ThresholdBreach t : result.breaches()) {
      why.add("backend " + t.backend() + " was aborted: " + t.threshold() + " (" + t.observed() + ").");
    }
    return why;
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
        } else if (!footprint.complete()) {
          notes.add("its stored size is partial: " + footprint.source());
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

  static void writeIngest(RunDir runDir, String name, List<IngestRow> rows) throws IOException {
    StringBuilder csv = new StringBuilder(IngestRow.CSV_HEADER).append('\n');
    rows.forEach(r -> csv.append(r.csv()).append('\n'));
    runDir.writeString(name, csv.toString());
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

  static void writeSteps(RunDir runDir, String name, List<StepRow> rows) throws IOException {
    StringBuilder csv = new StringBuilder(StepRow.CSV_HEADER).append('\n');
    rows.forEach(r -> csv.append(r.csv()).append('\n'));
    runDir.writeString(name, csv.toString());
  }
}
