package io.logbench.cli;

import io.logbench.config.ConfigException;
import io.logbench.job.VerifyJob;
import io.logbench.ledger.LedgerFiles;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.replay.ReplayFiles;
import io.logbench.rundir.RunDir;
import io.logbench.report.Reports;
import io.logbench.verify.BackendReport;
import io.logbench.verify.LedgerFromKafka;
import io.logbench.verify.Verdict.Status;
import io.logbench.verify.VerifyOutputs;
import io.logbench.verify.VerifyPlan;
import io.logbench.verify.VerifySettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
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
 * {@code verify CONFIG [--run-dir DIR] [--window D] [--continuous] [--strict] [--settle D]
 * [--max-wait D] [--recheck D] [--drill N] [--ledger-kafka BOOTSTRAP[/TOPIC]] [--run-id ID]
 * [--verdicts-kafka BOOTSTRAP --verdicts-topic TOPIC]}:
 * counts every backend of the run back, window by window, against the ledger and the dataset, on
 * Flink. The window ({@code --window}, else the run file's) is the ledger's or a whole multiple of
 * it. Writes verdicts.csv, missing.csv, verify-summary.txt and verify-stats.csv into the run
 * directory, prints a table per backend, and rewrites the run's report.html. With {@code
 * --ledger-kafka} (or {@code --run-id} and the run file's {@code run.ledger_kafka}) the run's
 * run.json and ledger come from Kafka ({@link LedgerFromKafka}) and are written into the run
 * directory first, so verify needs no directory generate wrote.
 *
 * <p>Exit codes: 0 when no window is MISSING, DUPLICATE or PENDING (REJECTED windows are reported
 * but are the sender's failure, already in generate's exit code, not the backend's loss; REPLAYED
 * windows are reported and counted apart: at-least-once delivery sends again after a restore, and
 * the copies are the job's, not the backend's fault); 1 when a window is MISSING or DUPLICATE, a
 * backend did not answer before the deadline (PENDING at the end), or, with {@code --strict}, a
 * window is REPLAYED; 2 for a wrong command line or run file, or a run directory without a ledger.
 */
@Command(name = "verify", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = {
      "Count every backend of the run back, window by window, against the ledger and the dataset"
          + " (a Flink job); write verdicts.csv, missing.csv and verify-summary.txt.",
      "Exits 1 when a window is MISSING, DUPLICATE or still PENDING (no answer), 0 otherwise"
          + " (REJECTED windows are reported)."
    })
final class VerifyCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "CONFIG", description = "The run file.")
  Path file;

  @Option(names = "--run-dir", paramLabel = "DIR", description = "The run's directory (default: the run file's"
      + " run.dir): a path, or a URI of a Flink file system such as s3://bucket/runs/x.")
  String runDirOption;

  @Option(names = "--window", paramLabel = "DURATION",
      description = "Verify at this window: the ledger's (the run file's window when generate ran) or a whole"
          + " multiple of it (default: the run file's window).")
  Duration window;

  @Option(names = "--continuous", description = "Check windows as they close beside a live generate.")
  boolean continuous;

  @Option(names = "--strict",
      description = "Exit 1 on REPLAYED windows too (copies logbench itself sent again after a restore).")
  boolean strict;

  @Option(names = "--settle", paramLabel = "DURATION",
      description = "Wait after a window's end before its first check (default: 0s one-shot, 30s continuous).")
  Duration settleOption;

  @Option(names = "--max-wait", paramLabel = "DURATION",
      description = "How long a window may take to match or a backend to answer (default: 30s one-shot, 5m continuous).")
  Duration maxWaitOption;

  @Option(names = "--recheck", paramLabel = "DURATION", description = "Pause between checks of a window (default: 5s).")
  Duration recheckOption;

  @Option(names = "--drill", paramLabel = "N",
      description = "Most sequence ids listed per MISSING or DUPLICATE window; 0 for none (default: 100).")
  Integer drillOption;

  @Option(names = "--quiet", description = "No progress lines while the job runs.")
  boolean quiet;

  @Mixin PrometheusOption prometheus = new PrometheusOption();

  @Mixin ClusterOption cluster = new ClusterOption();

  @Option(names = "--ledger-kafka", paramLabel = "BOOTSTRAP[/TOPIC]",
      description = "Read the run's run.json and ledger from Kafka, where generate writes them with"
          + " run.ledger_kafka (default topic logbench-ledger), instead of from the run directory; they are"
          + " written into the run directory with verify's outputs.")
  String ledgerKafka;

  @Option(names = "--run-id", paramLabel = "ID",
      description = "The run to read from Kafka (--ledger-kafka, else the run file's run.ledger_kafka; default:"
          + " run.json's runId in the run directory).")
  String runIdOption;

  @Option(names = "--verdicts-kafka", paramLabel = "BOOTSTRAP", description = "Also write every verdict to Kafka at BOOTSTRAP.")
  String kafka;

  @Option(names = "--verdicts-topic", paramLabel = "TOPIC", description = "The topic of --verdicts-kafka.")
  String topic;

  private final PrintStream out;
  private final PrintStream err;

  VerifyCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    org.apache.flink.configuration.Configuration metrics = prometheus.configuration("verify");
    ClusterOption.Jobs jobs = cluster.open("verify", metrics, err);
    VerifySettings defaults = continuous ? VerifySettings.continuousDefaults() : VerifySettings.oneShot();
    Duration settle = or(settleOption, defaults.settle());
    Duration maxWait = or(maxWaitOption, defaults.maxWait());
    Duration recheck = or(Main.positive("verify", "--recheck", recheckOption), defaults.recheck());
    Main.positive("verify", "--window", window);
    int drill = drillOption == null ? VerifySettings.DEFAULT_DRILL : drillOption;
    if (drill < 0) {
      throw new UsageException("verify: --drill " + drill + " is not valid; expected 0 or more.");
    }
    if ((kafka == null) != (topic == null)) {
      throw new UsageException("verify: --verdicts-kafka and --verdicts-topic go together; give both or neither.");
    }
    RunConfig config = ConfigLoader.load(file);
    if (config.backends().isEmpty()) {
      throw new ConfigException(file + ": backends: missing; expected the list of backend blocks the run sent to.");
    }
    RunDir runDir = runDirOption != null ? RunDir.of(runDirOption) : config.runDir();
    io.logbench.ledger.LedgerKafka fromKafka = ledgerFromKafka(config);
    io.logbench.verify.LedgerView ledgerView = io.logbench.verify.LedgerView.files(runDir, !continuous);
    if (fromKafka != null) {
      if (continuous) {
        throw new UsageException("verify: --continuous follows a live run through its run directory; the ledger in"
            + " Kafka (--ledger-kafka, --run-id) is read once the run has ended, so expected one or the other.");
      }
      LedgerFromKafka.Fetched fetched = LedgerFromKafka.fetch(fromKafka, runIdOption, runDir, config);
      err.printf(Locale.ROOT, "verify: run %s: run.json and %d ledger row(s) from topic %s at %s, written to %s%n",
          fetched.runId(), fetched.rows(), fromKafka.topic(), fromKafka.bootstrap(), runDir);
      // the job's tasks read the rows from Kafka too: on a cluster they may not see this directory
      ledgerView = io.logbench.verify.LedgerView.kafka(fromKafka, fetched.runId());
      for (String b : fetched.backendsWithoutRows()) {
        err.println("verify: warning: the ledger in Kafka has no row of backend " + b + "; its windows stay PENDING.");
      }
    } else if (!continuous) {
      try {
        LedgerFiles.read(runDir);
      } catch (IOException e) {
        throw new ConfigException(e.getMessage());
      }
    }
    VerifySettings settings = new VerifySettings(continuous, settle, maxWait, recheck, drill);
    VerifyPlan plan = VerifyPlan.of(config, runDir, settings, window, ledgerView);
    err.printf(Locale.ROOT, "verify: %d window(s) of %s%s for %s (%s)%n", plan.targets().get(0).windows(),
        io.logbench.config.Durations.format(Duration.ofMillis(plan.windowMillis())),
        plan.windowMillis() == plan.ledgerWindowMillis() ? ""
            : " (sums of the ledger's " + io.logbench.config.Durations.format(Duration.ofMillis(
                plan.ledgerWindowMillis())) + " rows)",
        String.join(", ", plan.targets().stream().map(t -> t.name()).toList()),
        continuous ? "continuous, settle " + settle.toSeconds() + " s, max wait " + maxWait.toSeconds() + " s"
            : "one-shot");
    VerifyJob job = new VerifyJob(config.name(), plan.targets());
    if (kafka != null) {
      job.verdictsTo(kafka, topic);
    }
    Map<String, Integer> windows = new java.util.LinkedHashMap<>();
    plan.targets().forEach(t -> windows.put(t.name(), t.windows()));
    List<BackendReport> reports;
    try (jobs; Progress progress = Progress.start(Progress.mode(quiet, err), err,
        new VerifyProgress(windows, job::progress, System::currentTimeMillis))) {
      reports = new ArrayList<>(job.run(jobs.environment(1)));
    }
    plan.skipped().forEach((name, why) -> reports.add(BackendReport.skipped(name, why)));

    ByteArrayOutputStream text = new ByteArrayOutputStream();
    PrintStream summary = new PrintStream(text, true, StandardCharsets.UTF_8);
    VerifyOutputs.printTable(reports, summary);
    List<String> why = reasons(reports, strict);
    List<String> replayed = replayNotes(reports);
    summary.println(why.isEmpty() ? (replayed.isEmpty() ? "verdict: every checked window holds what its backend"
        + " acknowledged." : "verdict: every checked window holds what its backend acknowledged, and copies of"
        + " lines sent again after a restore.") : "verdict: FAILED");
    why.forEach(w -> summary.println("  " + w));
    if (!strict) {
      replayed.forEach(w -> summary.println("  note: " + w));
    }
    String stopped = stoppedNote(runDir);
    if (stopped != null) {
      summary.println("  note: " + stopped);
    }
    String printed = text.toString(StandardCharsets.UTF_8);
    out.print(printed);
    VerifyOutputs.write(runDir, reports, config.zone(), printed);
    out.println("wrote " + runDir.describe(VerifyOutputs.VERDICTS) + ", " + runDir.describe(VerifyOutputs.MISSING)
        + ", " + runDir.describe(VerifyOutputs.SUMMARY) + " and " + runDir.describe(VerifyOutputs.STATS));
    // the verdicts change the report; failing to draw it is a warning, the exit code stays the verdict's
    Reports.refresh(runDir, "verify", out, err);
    why.forEach(w -> err.println("verify: " + w));
    return why.isEmpty() ? 0 : 1;
  }

  /**
   * Where the ledger comes from when not from the run directory: {@code --ledger-kafka}, else the
   * run file's {@code run.ledger_kafka} when {@code --run-id} is given; null for the run directory.
   */
  private io.logbench.ledger.LedgerKafka ledgerFromKafka(RunConfig config) {
    if (ledgerKafka != null) {
      try {
        return io.logbench.ledger.LedgerKafka.parse(ledgerKafka);
      } catch (IllegalArgumentException e) {
        throw new UsageException("verify: --ledger-kafka " + e.getMessage());
      }
    }
    if (runIdOption == null) {
      return null;
    }
    if (config.ledgerKafka() == null) {
      throw new UsageException("verify: --run-id " + runIdOption + " names a run to read from Kafka, but there is no"
          + " --ledger-kafka and the run file has no run.ledger_kafka; expected --ledger-kafka BOOTSTRAP[/TOPIC].");
    }
    return config.ledgerKafka();
  }

  /**
   * A sentence for a run generate stopped before its end (run.json's {@code stopped}: Ctrl-C or
   * SIGTERM), or null: the lines it never sent are in the ledger as not sent, which is no loss.
   */
  static String stoppedNote(RunDir runDir) {
    try {
      String file = io.logbench.verify.VerifyPlan.RUN_JSON;
      if (!runDir.exists(file)) {
        return null;
      }
      com.fasterxml.jackson.databind.JsonNode stopped =
          new com.fasterxml.jackson.databind.ObjectMapper().readTree(runDir.read(file)).get("stopped");
      if (stopped == null || !stopped.isObject()) {
        return null;
      }
      return "generate was stopped by " + stopped.path("signal").asText("a signal") + " at "
          + java.time.Instant.ofEpochMilli(stopped.path("millis").asLong()) + " before the run's end ("
          + stopped.path("ending").asText() + "): the windows it did not finish sending are REJECTED with"
          + " 'not sent=N' in " + VerifyOutputs.VERDICTS + "; those lines were never sent, so no backend lost them"
          + " (generate --resume continues a cancelled run).";
    } catch (java.io.IOException e) {
      return null; // run.json was read by the plan already; a note is not worth failing verify over
    }
  }

  private static Duration or(Duration d, Duration fallback) {
    return d == null ? fallback : d;
  }

  /** Why verification failed, one sentence per backend and kind; empty when it did not. */
  static List<String> reasons(List<BackendReport> reports) {
    return reasons(reports, false);
  }

  /** One sentence per backend with REPLAYED windows. */
  static List<String> replayNotes(List<BackendReport> reports) {
    List<String> notes = new ArrayList<>();
    for (BackendReport r : reports) {
      if (r.skippedReason() == null && r.windowsByStatus().get(Status.REPLAYED) > 0) {
        notes.add("backend " + r.backend() + " holds " + r.replayedLines() + " copies of lines sent again after a"
            + " restore (at-least-once replay, not a backend fault) in " + r.windowsByStatus().get(Status.REPLAYED)
            + " window(s); see " + VerifyOutputs.VERDICTS + " and " + ReplayFiles.RESTORES + ".");
      }
    }
    return notes;
  }

  /**
   * Why verification failed, one sentence per backend and kind; empty when it did not. With {@code
   * strict}, REPLAYED windows fail it too.
   */
  static List<String> reasons(List<BackendReport> reports, boolean strict) {
    List<String> why = new ArrayList<>();
    for (BackendReport r : reports) {
      if (r.skippedReason() != null) {
        continue;
      }
      Map<Status, Integer> by = r.windowsByStatus();
      if (by.get(Status.MISSING) > 0) {
        why.add("backend " + r.backend() + " is missing " + r.missingLines() + " acknowledged line(s) in "
            + by.get(Status.MISSING) + " window(s); see " + VerifyOutputs.MISSING + ".");
      }
      if (by.get(Status.DUPLICATE) > 0) {
        why.add("backend " + r.backend() + " holds " + r.duplicateLines() + " line(s) more than acknowledged in "
            + by.get(Status.DUPLICATE) + " window(s); see " + VerifyOutputs.MISSING + ".");
      }
      if (by.get(Status.PENDING) > 0) {
        why.add("backend " + r.backend() + " did not answer (or never settled) for " + by.get(Status.PENDING)
            + " window(s) before the deadline; nothing is known about them, see " + VerifyOutputs.VERDICTS + ".");
      }
      if (strict && by.get(Status.REPLAYED) > 0) {
        why.add("backend " + r.backend() + " holds " + r.replayedLines() + " copies of lines sent again after a"
            + " restore in " + by.get(Status.REPLAYED) + " window(s) (--strict); see " + ReplayFiles.RESTORES + ".");
      }
      if (!r.finished()) {
        why.add("backend " + r.backend() + "'s check ended before every window had a verdict.");
      }
    }
    return why;
  }
}
