package io.logbench.run;

import io.logbench.config.ConfigException;
import io.logbench.job.BackendSummary;
import io.logbench.job.GenerateJob;
import io.logbench.job.StepRow;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.ledger.RunSummary;
import io.logbench.ledger.stream.Ledger;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunIds;
import io.logbench.plan.RunPlan;
import io.logbench.replay.ReplayFiles;
import io.logbench.rundir.RunDir;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.DeliverySettings.Mode;
import io.logbench.sink.LatencyHistogram;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import io.logbench.sink.ThresholdBreach;
import io.logbench.sink.WindowGrid;
import io.logbench.visibility.IngestRow;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One {@code generate} run around its job, below the command line: where its files go, the run
 * it continues ({@code --resume}), its id, the backends' pre-flight checks, {@code run.json}
 * before and after the job, and, once the job has ended, the final ledger (with the unsent
 * windows of a cancelled run), {@code ledger.csv}, the ledger in Kafka, the ledger summary,
 * {@code summary.csv}, {@code steps.csv} and {@code ingest.csv}. The command line keeps its
 * options, the progress lines, the signals and the printing; what the run has to say on the way
 * (warnings, a resume) goes to a {@code notes} consumer, one sentence each.
 *
 * <p>The order is the run's: {@link #prepare}, then {@link #preflight} (or a dry run of {@link
 * #checks}), {@link #start}, the job, {@link #finish}.
 */
public final class GenerateRun {

  private final Path file;
  private final RunConfig config;
  private final RunDir runDir;
  private final RunPlan plan;
  private final RunDir checkpointDir;
  private final ResumedRun resumed;
  private final String runId;
  private final RunContext run;
  private final Preflight checks;
  private final Duration startLead;
  private final Map<String, Object> runExtra = new LinkedHashMap<>();
  private GenerateJob job;
  private long runStart;

  private GenerateRun(Path file, RunConfig config, RunDir runDir, ResumedRun resumed, Duration startLead) {
    this.file = file;
    this.config = config;
    this.runDir = runDir;
    this.plan = RunPlan.of(config);
    this.checkpointDir = config.checkpointDir(runDir);
    this.startLead = startLead;
    this.resumed = resumed;
    // the checks see the run as if it started now; its real start is fixed once they are done
    long now = System.currentTimeMillis();
    long[] span = plan.span(now + startLead.toMillis());
    this.runId = resumed != null ? resumed.runId() : RunIds.create(config.name(), now, new SecureRandom());
    this.run = new RunContext(runId, plan.dataset().streams(), plan.dataset(), plan.firstIndex());
    this.checks = Preflight.of(run, span, config.window().toMillis(), config.zone(), span[0], now);
  }

  /**
   * The run of {@code config} ({@code file}): into {@code runDirOption} (null: the run file's
   * {@code run.dir}), or continuing the run in {@code resumeDir} (null: a fresh run) from its
   * newest checkpoint; its job starts {@code startLead} after {@link #start} is called.
   *
   * @throws ConfigException when the run file has no backend
   * @throws RunRefusedException when the two directories differ, or the run cannot be resumed
   */
  public static GenerateRun prepare(Path file, RunConfig config, String runDirOption, String resumeDir,
      Duration startLead) throws IOException {
    if (config.backends().isEmpty()) {
      throw new ConfigException(file + ": backends: missing; expected a list of backend blocks, such as"
          + " [{kind: discard}], for generate to send to.");
    }
    if (config.isCanary()) {
      throw new ConfigException(file + ": canary: this run file is a canary's (it runs until stopped); run it with"
          + " logbench canary, or remove the canary: block and give the run an end (dataset.lines or"
          + " schedule.duration).");
    }
    if (resumeDir != null && runDirOption != null
        && !RunDir.of(resumeDir).absolute().equals(RunDir.of(runDirOption).absolute())) {
      throw new RunRefusedException("--run-dir " + runDirOption + " and --resume " + resumeDir + " name two run"
          + " directories; --resume RUN_DIR alone says where the run is.");
    }
    RunDir runDir = resumeDir != null ? RunDir.of(resumeDir) : runDirOption != null ? RunDir.of(runDirOption)
        : config.runDir();
    ResumedRun resumed = resumeDir == null ? null
        : ResumedRun.of(runDir, file, config, RunPlan.of(config), config.checkpointDir(runDir));
    return new GenerateRun(file, config, runDir, resumed, startLead);
  }

  public RunConfig config() {
    return config;
  }

  public RunPlan plan() {
    return plan;
  }

  public RunDir runDir() {
    return runDir;
  }

  public String runId() {
    return runId;
  }

  /** The run continued, or null for a fresh one. */
  public ResumedRun resumed() {
    return resumed;
  }

  /** What the backends' pre-flight checks know of the run (for a dry run). */
  public Preflight checks() {
    return checks;
  }

  /**
   * Runs every backend's pre-flight check and returns the warnings, each "warning: " and a
   * sentence. A resumed run's backends hold its own lines already, which the checks would take
   * for another run's, so a resumed run has none.
   *
   * @throws IllegalStateException naming the backend that is not ready
   */
  public List<String> preflight() {
    List<String> warnings = new ArrayList<>();
    for (BackendConfig b : resumed != null ? List.<BackendConfig>of() : config.backends()) {
      try {
        for (String warning : b.spec().preflight(checks)) {
          warnings.add("warning: " + warning);
        }
      } catch (IOException e) {
        throw new IllegalStateException("Backend " + b.name() + " is not ready: " + e.getMessage());
      }
    }
    return warnings;
  }

  /**
   * Fixes the run's start ({@code startLead} from now, or the resumed run's), builds its job and
   * writes {@code run.json} before the job runs, so a continuous verify can follow the run while
   * it goes; with {@code run.ledger_kafka}, creates the topics and publishes run.json there too.
   *
   * @param notes what the run says on the way (a resume, where the lines come from)
   */
  public GenerateJob start(Consumer<String> notes) throws IOException {
    runStart = resumed != null ? resumed.runStartMillis() : System.currentTimeMillis() + startLead.toMillis();
    job = GenerateJob.of(plan).runDir(runDir).runStartMillis(runStart).runId(runId).checkpointDir(checkpointDir);
    if (resumed != null) {
      job.resumeFrom(resumed.checkpoint().dir());
      runExtra.put("resumes", resumed.resumes(System.currentTimeMillis()));
      notes.accept("resuming run " + runId + " from checkpoint " + resumed.checkpoint().id() + " ("
          + resumed.checkpoint().dir() + "); what it sends again is recorded in "
          + ReplayFiles.in(runDir).restoresLocation());
    }
    runDir.createDirectories();
    RunJson.write(runDir, file, plan, runStart, runId, null, runExtra);
    if (config.ledgerKafka() != null) {
      try {
        config.ledgerKafka().ensureTopics();
        RunJson.publish(config, runDir, runId);
      } catch (IOException e) {
        throw new IllegalStateException("The ledger's Kafka topic is not usable (run.ledger_kafka): " + e.getMessage(), e);
      }
    }
    if (plan.published() != null) {
      notes.accept("lines read from " + plan.published() + " (published " + plan.published().manifest()
          .publishedAt() + "), one reading per backend");
    }
    return job;
  }

  /** The run's start (epoch ms), once {@link #start} fixed it. */
  public long runStartMillis() {
    return runStart;
  }

  /**
   * What the run came to, with the files {@link #finish} wrote.
   *
   * @param ledger every backend's final ledger rows
   * @param ledgerSummary the ledger's totals per backend
   * @param steps every backend's ladder step rows (empty without a ladder)
   * @param ingest each backend's ingest figures
   * @param reasons why the run failed, a sentence each; empty when it did not
   */
  public record Finished(GenerateJob.Result result, List<LedgerEntry> ledger, RunSummary ledgerSummary,
      List<StepRow> steps, List<IngestRow> ingest, List<String> reasons) {}

  /**
   * After the job: the final {@code run.json} (with {@code stopped} when the job did not finish:
   * the signal, when, and how it ended), the final ledger ({@link #finalLedger}; a cancelled run's
   * unsent windows added), {@code ledger.csv}, the end of the run in Kafka, the ledger summary,
   * {@code summary.csv}, {@code steps.csv} (a ladder) and {@code ingest.csv}.
   *
   * @param signal the signal that stopped the run, or null
   * @param notes what the run says on the way (a warning when Kafka did not take the end of the run)
   */
  public Finished finish(GenerateJob.Result result, String signal, Consumer<String> notes) throws IOException {
    if (result.ending() != GenerateJob.Ending.FINISHED) {
      Map<String, Object> stopped = new LinkedHashMap<>();
      stopped.put("signal", signal != null ? signal : "none");
      stopped.put("millis", System.currentTimeMillis());
      stopped.put("ending", result.ending().name().toLowerCase(Locale.ROOT));
      runExtra.put("stopped", stopped);
    }
    RunJson.write(runDir, file, plan, runStart, runId, System.currentTimeMillis(), runExtra);

    List<LedgerEntry> ledger = finalLedger(config, runDir, runId, notes);
    if (result.ending() == GenerateJob.Ending.CANCELLED) {
      // a cancelled job wrote no row for windows no batch reached: they are the unsent ones
      ledger = unsentWindows(ledger, config, plan, job.gridAnchor(), runStart);
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
        RunJson.publish(config, runDir, runId);
      } catch (IOException e) {
        notes.accept("warning: the end of the run was not written to Kafka (run.ledger_kafka), so verify"
            + " --ledger-kafka will take the run for unfinished; the run directory's ledger is complete: "
            + e.getMessage());
      }
    }
    RunSummary ledgerSummary = RunSummary.of(ledger);
    ledgerSummary.write(runDir);
    runDir.writeString(SUMMARY_CSV, summaryCsv(result));
    List<StepRow> steps = new ArrayList<>();
    result.backends().forEach(b -> steps.addAll(b.steps()));
    if (!steps.isEmpty()) {
      writeSteps(runDir, STEPS_CSV, steps);
    }
    List<IngestRow> ingest = IngestFigures.rows(config, plan, run, result);
    IngestFigures.write(runDir, IngestRow.FILE, ingest);
    List<String> why = resumed != null ? reasons(result, ledgerSummary) : reasons(result);
    return new Finished(result, ledger, ledgerSummary, steps, ingest, why);
  }

  /** The per-backend totals of the job, in the run directory. */
  public static final String SUMMARY_CSV = "summary.csv";

  /** A ladder's step rows, in the run directory. */
  public static final String STEPS_CSV = "steps.csv";

  /**
   * Every backend's final ledger rows: from the backend's own ledger under {@code
   * runDir/ledger/<backend>/}, which the job's tasks write; when a backend's is not there (the
   * tasks ran on other machines, without a shared run directory) and the ledger goes to Kafka
   * too, the backend's rows from Kafka, with a note.
   *
   * @throws IOException when a backend's rows are in neither place
   */
  public static List<LedgerEntry> finalLedger(RunConfig config, Path runDir, String runId, Consumer<String> notes)
      throws IOException {
    return finalLedger(config, RunDir.of(runDir), runId, notes);
  }

  /** As {@link #finalLedger(RunConfig, Path, String, Consumer)}, for a run directory anywhere. */
  public static List<LedgerEntry> finalLedger(RunConfig config, RunDir runDir, String runId, Consumer<String> notes)
      throws IOException {
    List<LedgerEntry> ledger = new ArrayList<>();
    List<LedgerEntry> fromKafka = null;
    for (BackendConfig b : config.backends()) {
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
      notes.accept("backend " + b.name() + "'s ledger is not in " + own + " (its tasks ran elsewhere);"
          + " took its " + rows.size() + " row(s) from topic " + config.ledgerKafka().topic() + " instead.");
      ledger.addAll(rows);
    }
    return ledger;
  }

  /**
   * The rows of a cancelled run with a row added (expected, nothing sent) for each window of the
   * run no batch reached, as a drained job's ledger has them.
   *
   * @param gridAnchor a time the run's window grid is aligned near ({@link GenerateJob#gridAnchor})
   */
  static List<LedgerEntry> unsentWindows(List<LedgerEntry> rows, RunConfig config, RunPlan plan, long gridAnchor,
      long runStart) {
    Set<LedgerEntry.Key> have = new HashSet<>();
    rows.forEach(r -> have.add(r.key()));
    List<LedgerEntry> out = new ArrayList<>(rows);
    var expected = plan.expectedCounts(runStart);
    long[] span = plan.span(runStart);
    WindowGrid grid = WindowGrid.aligned(config.window().toMillis(), config.zone(), gridAnchor);
    for (long s : Ledger.windowStarts(grid, span[0], span[1])) {
      long e = s + grid.sizeMillis();
      long n = expected.count(s, e);
      for (BackendConfig b : config.backends()) {
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
  public static List<String> reasons(GenerateJob.Result result, RunSummary ledger) {
    List<String> why = new ArrayList<>();
    for (BackendSummary b : result.backends()) {
      if (b.mode() != Mode.AT_LEAST_ONCE) {
        continue;
      }
      for (RunSummary.BackendTotals t : ledger.backends()) {
        if (t.backend().equals(b.backend()) && t.acked() < t.expected()) {
          why.add("backend " + b.backend() + " acknowledged " + count(t.acked()) + " of "
              + count(t.expected()) + " lines (ledger, over the whole run)" + failedText(t.rejected()) + ".");
        }
      }
    }
    for (ThresholdBreach t : result.breaches()) {
      why.add("backend " + t.backend() + " was aborted: " + t.threshold() + " (" + t.observed() + ").");
    }
    return why;
  }

  /** Why the run failed, one sentence per backend; empty when it did not. */
  public static List<String> reasons(GenerateJob.Result result) {
    List<String> why = new ArrayList<>();
    for (BackendSummary b : result.backends()) {
      if (b.mode() == Mode.AT_LEAST_ONCE && !b.allAcked()) {
        why.add("backend " + b.backend() + " acknowledged " + count(b.acked()) + " of "
            + count(b.expectedLines()) + " lines" + failedText(b.failed()) + ".");
      }
    }
    for (ThresholdBreach t : result.breaches()) {
      why.add("backend " + t.backend() + " was aborted: " + t.threshold() + " (" + t.observed() + ").");
    }
    return why;
  }

  /** "; not acknowledged: reason n, ..." for the reasons of {@code failed}, or "" when there are none. */
  public static String failedText(Map<String, Long> failed) {
    if (failed.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder("; not acknowledged: ");
    failed.forEach((r, n) -> b.append(b.toString().endsWith(": ") ? "" : ", ").append(r).append(' ').append(count(n)));
    return b.toString();
  }

  /** Milliseconds of {@code micros} with one decimal, as the tables and CSV files give them. */
  public static String ms(long micros) {
    return String.format(Locale.ROOT, "%.1f", micros / 1000.0);
  }

  /** {@code key=value} pairs joined by {@code separator}. */
  public static String pairs(Map<String, Long> m, String separator) {
    StringBuilder b = new StringBuilder();
    m.forEach((k, v) -> b.append(b.length() == 0 ? "" : separator).append(k).append('=').append(v));
    return b.toString();
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** {@value #SUMMARY_CSV}: one row per backend of the job's totals. */
  public static String summaryCsv(GenerateJob.Result result) {
    StringBuilder csv = new StringBuilder("backend,mode,expected_lines,lines,acked,requests,p50_ms,p95_ms,p99_ms,"
        + "max_ms,failures,resent_requests,resent_lines,request_p50_ms,request_p95_ms,request_p99_ms\n");
    for (BackendSummary b : result.backends()) {
      LatencyHistogram h = b.latencyMicros();
      LatencyHistogram request = b.serviceMicros();
      StringBuilder f = new StringBuilder();
      b.failed().forEach((r, n) -> f.append(f.length() == 0 ? "" : ";").append(r).append('=').append(n));
      String failures = f.toString().contains(",") ? "\"" + f.toString().replace("\"", "\"\"") + "\"" : f.toString();
      csv.append(String.join(",", b.backend(), b.mode().key(), Long.toString(b.expectedLines()),
          Long.toString(b.lines()), Long.toString(b.acked()), Long.toString(b.requests()),
          ms(h.percentile(50)), ms(h.percentile(95)), ms(h.percentile(99)), ms(h.max()), failures,
          pairs(b.resentRequests(), ";"), pairs(b.resentLines(), ";"),
          ms(request.percentile(50)), ms(request.percentile(95)), ms(request.percentile(99)))).append('\n');
    }
    return csv.toString();
  }

  /** Writes ladder step rows to {@code name} in the run directory. */
  public static void writeSteps(RunDir runDir, String name, List<StepRow> rows) throws IOException {
    StringBuilder csv = new StringBuilder(StepRow.CSV_HEADER).append('\n');
    rows.forEach(r -> csv.append(r.csv()).append('\n'));
    runDir.writeString(name, csv.toString());
  }
}
