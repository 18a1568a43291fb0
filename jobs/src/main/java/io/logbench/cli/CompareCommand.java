package io.logbench.cli;

import io.logbench.report.Comparison;
import io.logbench.report.RunData;
import io.logbench.rundir.RunDir;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code compare RUN_DIR}: prints seed 004's comparison table for the run in RUN_DIR, generated
 * from its files ({@link Comparison}): per backend ingest time and rate, bytes stored per line
 * beside the dataset's, write-to-visible latency, lines lost and duplicated, and search medians,
 * with the seed's hand-made figures below. Exit code 0 when printed, 2 when RUN_DIR is not a
 * directory.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = {
      "Print seed 004's comparison table for the run in RUN_DIR: per backend ingest time and rate, bytes"
          + " stored per line, write-to-visible latency, losses and search medians, from the files generate,"
          + " verify and query wrote there, beside the seed's hand-made figures."
    })
final class CompareCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "RUN_DIR", description = "The run directory.")
  String runDir;

  private final PrintStream out;

  CompareCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws java.io.IOException {
    RunDir dir = RunDir.of(runDir);
    if (!dir.exists()) {
      throw new UsageException("compare: RUN_DIR " + runDir + " is not a directory; expected a run directory"
          + " (the --run-dir of generate, or run.dir of the run file).");
    }
    RunData data = RunData.read(dir, null);
    out.print(Comparison.of(data).text(data.name()));
    return 0;
  }
}
