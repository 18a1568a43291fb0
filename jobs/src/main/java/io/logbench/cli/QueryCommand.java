package io.logbench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.logbench.config.ConfigException;
import io.logbench.dataset.Dataset;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.query.Mismatch;
import io.logbench.query.QueryFiles;
import io.logbench.query.QueryRunner;
import io.logbench.query.Search;
import io.logbench.query.SearchOutcome;
import io.logbench.query.SearchPlan;
import io.logbench.report.Reports;
import io.logbench.rundir.RunDir;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.RunContext;
import io.logbench.verify.VerifyPlan;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code query CONFIG [--run-dir DIR] [--repeat N] [--parallelism N]}: runs seed 004's searches
 * (count by status, by path, per hour over the first day and the whole run, per 30 s over the
 * first day) against every backend of a run, each in the backend's own language, times them, and
 * compares every answer cell by cell with the exact answer, which {@code plan --by} prints. Writes
 * queries.csv and query-mismatches.csv into the run directory and rewrites its report.html.
 *
 * <p>Exit codes: 0 when every cell of every answer is exact; 1 when a cell is wrong (each named
 * on stderr: backend, bucket, key, expected and got) or a backend failed a search; 2 for a wrong
 * command line or run file.
 */
@Command(name = "query", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = {
      "Run the case study's searches (count by status and by path per hour over a day and the whole run,"
          + " per 30 s over a day) on every backend of the run in its own language, time them, and compare"
          + " every cell with the exact answer; write queries.csv.",
      "Exits 1 when a cell is wrong or a backend fails a search, 0 otherwise."
    })
final class QueryCommand implements Callable<Integer> {

  /** Repetitions of each search by default: the first apart (cold), the median and worst of the rest. */
  static final int DEFAULT_REPEAT = 5;

  @Parameters(index = "0", paramLabel = "CONFIG", description = "The run file.")
  Path file;

  @Option(names = "--run-dir", paramLabel = "DIR", description = "The run's directory (default: the run file's run.dir).")
  String runDirOption;

  @Option(names = "--repeat", paramLabel = "N",
      description = "Runs of each search (default: 5; the first is reported apart as the cold one).")
  Integer repeatOption;

  @Option(names = "--parallelism", paramLabel = "N",
      description = "Threads that compute the exact answers (default: the machine's cores).")
  Integer parallelismOption;

  private final PrintStream out;
  private final PrintStream err;

  QueryCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    int repeat = repeatOption == null ? DEFAULT_REPEAT : repeatOption;
    if (repeat < 1) {
      throw new UsageException("query: --repeat " + repeat + " is not valid; expected 1 or more.");
    }
    int parallelism = parallelismOption == null ? Runtime.getRuntime().availableProcessors() : parallelismOption;
    if (parallelism < 1) {
      throw new UsageException("query: --parallelism " + parallelism + " is not valid; expected 1 or more.");
    }
    RunConfig config = ConfigLoader.load(file);
    RunDir runDir = runDirOption != null ? RunDir.of(runDirOption) : config.runDir();
    RunPlan plan = RunPlan.of(config);
    Dataset dataset = plan.dataset();
    JsonNode runJson = VerifyPlan.runJson(runDir);
    long runStart = VerifyPlan.runStartMillis(config, plan, runDir, runJson);
    String runId = VerifyPlan.runId(runJson);
    ExpectedCounts expected = plan.expectedCounts(runStart);
    long[] span = plan.span(runStart);

    List<String> keys = new ArrayList<>();
    for (String key : dataset.countKeys()) {
      if (dataset.streams().labelNames().contains(key)) {
        keys.add(key);
      }
    }
    if (keys.isEmpty()) {
      throw new ConfigException(file + ": dataset: " + dataset.name() + " counts lines exactly by no stream label;"
          + " query counts by a label every backend keeps (status and path of nginx-month, container of app-json).");
    }
    List<Search> searches = SearchPlan.of(keys, span[0], span[1], config.zone(),
        (key, a, b, size) -> plan.keyedCounts(key, expected.windows(a, b, size), runStart, parallelism));

    RunContext run = new RunContext(runId, dataset.streams(), dataset, plan.firstIndex(), expected);
    List<QueryRunner.Target> targets = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    try {
      for (BackendConfig b : config.backends()) {
        if (b.spec().write() != null) {
          // a pipeline's lines carry the agent's labels and fields, not the dataset's: nothing to compare
          skipped.add(b.name() + " (behind write " + b.spec().write().name() + ")");
        } else if (b.spec().capabilities().countable()) {
          targets.add(new QueryRunner.Target(b.name(), b.spec().openSearch(run)));
        } else {
          skipped.add(b.name() + " (nothing to search)");
        }
      }
    } catch (RuntimeException e) {
      targets.forEach(t -> t.search().close()); // the ones opened before the one that could not be
      throw e;
    }
    if (targets.isEmpty()) {
      throw new ConfigException(file + ": backends: no backend of the run file keeps its lines; expected at least one"
          + " backend that is not discard.");
    }
    err.printf(Locale.ROOT, "query: %d search(es) by %s on %s, %d run(s) each%s%s%n", searches.size(),
        String.join(" and ", keys), String.join(", ", targets.stream().map(QueryRunner.Target::backend).toList()),
        repeat, runId == null ? "" : ", run " + runId,
        skipped.isEmpty() ? "" : " (skipped: " + String.join(", ", skipped) + ")");

    out.printf("%-14s %-26s %-18s %9s %10s %7s %11s %11s %11s %8s%n", "backend", "language", "search", "buckets",
        "cells", "status", "cold ms", "median ms", "worst ms", "requests");
    List<SearchOutcome> outcomes = QueryRunner.run(targets, searches, repeat, o -> out.printf(Locale.ROOT,
        "%-14s %-26s %-18s %9d %10s %7s %11s %11s %11s %8d%n", o.backend(), o.language(), o.search().name(),
        o.search().query().buckets(), Format.count(o.cells()), o.status(), ms(o.coldNanos()), ms(o.medianNanos()),
        ms(o.worstNanos()), o.requests()));

    QueryFiles.write(runDir, outcomes, config.zone());
    out.println("wrote " + runDir.describe(QueryFiles.QUERIES) + " and " + runDir.describe(QueryFiles.MISMATCHES));
    Reports.refresh(runDir, "query", out, err);

    int failed = 0;
    for (SearchOutcome o : outcomes) {
      if (o.status() == SearchOutcome.Status.FAILED) {
        failed++;
        err.println("query: backend " + o.backend() + " failed search " + o.search().name() + ": " + o.error());
      } else if (o.status() == SearchOutcome.Status.WRONG) {
        failed++;
        err.println("query: backend " + o.backend() + " answered search " + o.search().name() + " with "
            + Format.count(o.wrongCells()) + " wrong cell(s) of " + Format.count(o.cells()) + ":");
        for (Mismatch m : o.mismatches()) {
          err.println("  " + m.sentence(config.zone()));
        }
      }
    }
    out.println(failed == 0 ? "verdict: every cell of every answer equals the exact answer."
        : "verdict: FAILED (" + failed + " search(es) wrong or failed; see above and " + QueryFiles.MISMATCHES + ")");
    return failed == 0 ? 0 : 1;
  }

  private static String ms(long nanos) {
    return nanos < 0 ? "-" : String.format(Locale.ROOT, "%.1f", nanos / 1e6);
  }
}
