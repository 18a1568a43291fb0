package io.logbench.cli;

import io.logbench.canary.CanaryFiles;
import io.logbench.canary.CanarySettings;
import io.logbench.job.CanaryJob;
import io.logbench.job.FlinkEnvironments;
import io.logbench.job.GenerateJob;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.run.CanaryRun;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.apache.flink.core.execution.JobClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code canary CONFIG}: a continuous completeness check beside a live system, until stopped.
 * What a start does in its run directory (the run it goes on with, the gap while it was down,
 * run.json, old snapshots) is {@link CanaryRun}'s, and the job is {@link CanaryJob}; this command
 * keeps the options, the signals, the lines it prints ({@link CanaryStatus}) and the exit code.
 * Ctrl-C or SIGTERM stops it cleanly: a savepoint, from which the next start with the same run
 * directory goes on; it then exits 0. In-process only: a canary is one process, like
 * loki-canary.
 */
@Command(name = "canary", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = {
      "Send CONFIG's lines to every backend at a constant rate until stopped, count every window back once it"
          + " settles, and count verified windows again at their spot-check ages; verdicts and the ledger go to"
          + " day files in the run directory, metrics to --prometheus.",
      "Started again with the same run directory it goes on with the same run: what it sends again is REPLAYED,"
          + " the time it was down a gap. Ctrl-C or SIGTERM stops it cleanly (exit 0)."
    })
final class CanaryCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "CONFIG", description = "The run file, with a canary: block.")
  Path file;

  @Option(names = "--run-dir", paramLabel = "DIR",
      description = "Where the canary's files go (default: the run file's run.dir): a local directory.")
  String runDirOption;

  @Option(names = "--settle", paramLabel = "D", description = "Count a window this long after its end (default: the"
      + " run file's canary.settle, 30s).")
  Duration settle;

  @Option(names = "--max-wait", paramLabel = "D", description = "A window that does not match is final this long"
      + " after its first count (default: canary.max_wait, 5m).")
  Duration maxWait;

  @Option(names = "--recheck", paramLabel = "D", description = "Pause between counts of a window that does not match"
      + " yet (default: canary.recheck, 5s).")
  Duration recheck;

  @Option(names = "--retention", paramLabel = "D", description = "How long verdict and ledger files are kept, and the"
      + " oldest window counted again (default: canary.retention, 7d).")
  Duration retention;

  @Option(names = "--status-every", paramLabel = "D", description = "How often a status line is printed (default 1m;"
      + " every window that is not OK is printed as it is decided).")
  Duration statusEvery = Duration.ofMinutes(1);

  @Option(names = "--quiet", description = "No status lines (windows that are not OK are still printed).")
  boolean quiet;

  @Mixin PrometheusOption prometheus = new PrometheusOption();

  private final PrintStream out;
  private final PrintStream err;

  CanaryCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    Main.positive("canary", "--recheck", recheck);
    Main.positive("canary", "--retention", retention);
    Main.positive("canary", "--status-every", statusEvery);
    org.apache.flink.configuration.Configuration metrics = prometheus.configuration("canary");
    RunConfig config = ConfigLoader.load(file);
    CanarySettings settings = config.canary() == null ? null
        : config.canary().with(settle, maxWait, recheck, retention);
    try (CanaryRun run = CanaryRun.prepare(file, config, settings, runDirOption, GenerateJob.DEFAULT_START_LEAD)) {
      run.preflight().forEach(this::note);
      CanaryJob job = run.start(this::note);
      err.printf(Locale.ROOT, "canary: run %s, %s lines/s to %d backend(s): %s; windows of %s; verdicts in %s%n",
          run.runId(), Format.rate(config.schedule().rate()), config.backends().size(),
          String.join(", ", config.backends().stream().map(b -> b.name() + " (" + b.spec().kind()
              + (b.spec().write() == null ? "" : ", behind write " + b.spec().write().name()) + ")").toList()),
          io.logbench.config.Durations.format(config.window()), run.runDir().resolve(CanaryFiles.VERDICTS));
      JobClient client = job.start(FlinkEnvironments.create(config.parallelism(), metrics));
      String ending = "savepoint";
      try (CanaryStatus status = CanaryStatus.start(run.runDir(), config, quiet ? null : statusEvery, out);
          StopSignals s = new StopSignals("canary", err, job::stop, StopSignals.DEFAULT_GRACE)) {
        try {
          client.getJobExecutionResult().get();
        } catch (ExecutionException e) {
          if (s.received() == null) {
            throw e;
          }
          ending = "cancelled"; // a second signal, or a savepoint that did not come in time
        }
        status.finish();
        run.stopped(s.received(), ending);
        out.println("canary: stopped" + (s.received() == null ? "" : " by " + s.received()) + ("cancelled".equals(ending)
            ? " at once; its newest checkpoint stays for the next start" : " with a savepoint; the next start with"
                + " this run directory goes on from it") + ". Since this start: " + status.summary());
      }
      return 0;
    }
  }

  /** Prints a note of the start, as {@code canary: <note>}. */
  private void note(String note) {
    err.println("canary: " + note);
  }
}
