package io.logbench.cli;

import io.logbench.config.ConfigException;
import io.logbench.job.FlinkEnvironments;
import io.logbench.job.VerifyJob;
import io.logbench.ledger.LedgerFiles;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.verify.BackendReport;
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
import java.util.Set;

/**
 * {@code verify CONFIG [--run-dir DIR] [--window D] [--continuous] [--settle D] [--max-wait D]
 * [--recheck D] [--drill N] [--verdicts-kafka BOOTSTRAP --verdicts-topic TOPIC]}: counts every
 * backend of the run back, window by window, against the ledger and the dataset, on Flink. The
 * window ({@code --window}, else the run file's) is the ledger's or a whole multiple of it. Writes
 * verdicts.csv, missing.csv and verify-summary.txt into the run directory and prints a table per
 * backend.
 *
 * <p>Exit codes: 0 when no window is MISSING, DUPLICATE or PENDING (REJECTED windows are reported
 * but are the sender's failure, already in generate's exit code, not the backend's loss); 1 when a
 * window is MISSING or DUPLICATE, or a backend did not answer before the deadline (PENDING at the
 * end); 2 for a wrong command line or run file, or a run directory without a ledger.
 */
final class VerifyCommand {

  private VerifyCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err) throws Exception {
    Args args = Args.parse("verify", argv, Set.of("--continuous"),
        Set.of("--run-dir", "--window", "--settle", "--max-wait", "--recheck", "--drill", "--verdicts-kafka",
            "--verdicts-topic"));
    Path file = Path.of(args.positional(0, "the run file (CONFIG)"));
    args.expectPositionals(1);
    boolean continuous = args.flag("--continuous");
    VerifySettings defaults = continuous ? VerifySettings.continuousDefaults() : VerifySettings.oneShot();
    Duration settle = or(args.durationOrZero("--settle"), defaults.settle());
    Duration maxWait = or(args.durationOrZero("--max-wait"), defaults.maxWait());
    Duration recheck = or(args.duration("--recheck"), defaults.recheck());
    Duration window = args.duration("--window");
    int drill = args.integer("--drill", VerifySettings.DEFAULT_DRILL, 0);
    String kafka = args.option("--verdicts-kafka");
    String topic = args.option("--verdicts-topic");
    if ((kafka == null) != (topic == null)) {
      throw new UsageException("verify: --verdicts-kafka and --verdicts-topic go together; give both or neither.");
    }
    RunConfig config = ConfigLoader.load(file);
    if (config.backends().isEmpty()) {
      throw new ConfigException(file + ": backends: missing; expected the list of backend blocks the run sent to.");
    }
    Path runDir = args.option("--run-dir") != null ? Path.of(args.option("--run-dir")) : config.runDir();
    if (!continuous) {
      try {
        LedgerFiles.read(runDir);
      } catch (IOException e) {
        throw new ConfigException(e.getMessage());
      }
    }
    VerifySettings settings = new VerifySettings(continuous, settle, maxWait, recheck, drill);
    VerifyPlan plan = VerifyPlan.of(config, runDir, settings, window);
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
    List<BackendReport> reports = new ArrayList<>(job.run(FlinkEnvironments.create(1)));
    plan.skipped().forEach((name, why) -> reports.add(BackendReport.skipped(name, why)));

    ByteArrayOutputStream text = new ByteArrayOutputStream();
    PrintStream summary = new PrintStream(text, true, StandardCharsets.UTF_8);
    VerifyOutputs.printTable(reports, summary);
    List<String> why = reasons(reports);
    summary.println(why.isEmpty() ? "verdict: every checked window holds what its backend acknowledged."
        : "verdict: FAILED");
    why.forEach(w -> summary.println("  " + w));
    String printed = text.toString(StandardCharsets.UTF_8);
    out.print(printed);
    VerifyOutputs.write(runDir, reports, config.zone(), printed);
    out.println("wrote " + runDir.resolve(VerifyOutputs.VERDICTS) + ", " + runDir.resolve(VerifyOutputs.MISSING)
        + " and " + runDir.resolve(VerifyOutputs.SUMMARY));
    why.forEach(w -> err.println("verify: " + w));
    return why.isEmpty() ? 0 : 1;
  }

  private static Duration or(Duration d, Duration fallback) {
    return d == null ? fallback : d;
  }

  /** Why verification failed, one sentence per backend and kind; empty when it did not. */
  static List<String> reasons(List<BackendReport> reports) {
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
      if (!r.finished()) {
        why.add("backend " + r.backend() + "'s check ended before every window had a verdict.");
      }
    }
    return why;
  }
}
