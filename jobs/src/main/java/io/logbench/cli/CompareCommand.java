package io.logbench.cli;

import io.logbench.report.Comparison;
import io.logbench.report.RunData;
import io.logbench.rundir.RunDir;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code compare RUN_DIR...}: prints seed 004's comparison table for the runs in the RUN_DIRs,
 * generated from their files ({@link Comparison}): per backend ingest time and rate, bytes stored
 * per line beside the dataset's, write-to-visible latency, lines lost and duplicated, whether the
 * searches' answers were exact and their cold, median and worst times, and the servers' settings
 * when the run directory has them, with the seed's hand-made figures below. Several runs make one
 * table, a row per run and backend. Exit code 0 when printed, 2 when a RUN_DIR is not a directory.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = {
      "Print seed 004's comparison table for the runs in the RUN_DIRs: per backend ingest time and rate,"
          + " bytes stored per line, write-to-visible latency, losses, whether the searches answered exactly and"
          + " their cold/median/worst times, from the files generate, verify and query wrote there (and"
          + " servers.csv, the servers' settings, when there), beside the seed's hand-made figures. Several"
          + " RUN_DIRs make one table, a row per run and backend."
    })
final class CompareCommand implements Callable<Integer> {

  @Parameters(arity = "1..*", paramLabel = "RUN_DIR", description = "The run directory, or several.")
  List<String> runDirs;

  private final PrintStream out;

  CompareCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws java.io.IOException {
    List<RunData> runs = new ArrayList<>();
    for (String runDir : runDirs) {
      RunDir dir = RunDir.of(runDir);
      if (!dir.exists()) {
        throw new UsageException("compare: RUN_DIR " + runDir + " is not a directory; expected a run directory"
            + " (the --run-dir of generate, or run.dir of the run file).");
      }
      runs.add(RunData.read(dir, null));
    }
    String title = String.join(", ", runs.stream().map(RunData::name).toList());
    out.print(Comparison.of(runs).text(title));
    return 0;
  }
}
