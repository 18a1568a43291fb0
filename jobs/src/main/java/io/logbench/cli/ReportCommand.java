package io.logbench.cli;

import io.logbench.report.Reports;
import io.logbench.rundir.RunDir;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code report RUN_DIR [--out FILE] [--compare OTHER_RUN_DIR] [--config FILE]}: (re)builds the
 * run directory's {@code report.html} from its files, one page that opens offline; with {@code
 * --compare}, the run (baseline) and the other (contender) side by side. {@code --config} names
 * the run file when the one in run.json has moved. Exit code 0 when the page was written, 1 when
 * it could not be, 2 when a directory or the run file does not exist.
 */
@Command(name = "report", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = {
      "(Re)build RUN_DIR/report.html from the run directory's files: one page that opens offline.",
      "With --compare, the run (baseline) and another (contender) side by side, written to"
          + " RUN_DIR/compare.html."
    })
final class ReportCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "RUN_DIR", description = "The run directory (a path, or a URI of a Flink"
      + " file system such as s3://bucket/runs/x).")
  String runDir;

  @Option(names = "--out", paramLabel = "FILE", description = "Where the page goes (default: in RUN_DIR).")
  Path outFile;

  @Option(names = "--compare", paramLabel = "OTHER_RUN_DIR", description = "Another run to compare with.")
  String other;

  @Option(names = "--config", paramLabel = "FILE", description = "The run file, when the one run.json names has moved.")
  Path config;

  private final PrintStream out;

  ReportCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    RunDir dir = requireDirectory(runDir, "RUN_DIR");
    RunDir otherDir = other == null ? null : requireDirectory(other, "--compare");
    if (config != null && !Files.isRegularFile(config)) {
      throw new UsageException("report: --config " + config + " is not a file; expected the run file of the run.");
    }
    byte[] page = otherDir == null ? Reports.render(dir, config) : Reports.renderCompare(dir, otherDir, config);
    String name = otherDir != null ? "compare.html" : Reports.FILE;
    String file;
    if (outFile != null) {
      Path abs = outFile.toAbsolutePath();
      RunDir.of(abs.getParent()).write(abs.getFileName().toString(), page);
      file = outFile.toString();
    } else {
      dir.write(name, page);
      file = dir.describe(name);
    }
    out.printf(Locale.ROOT, "wrote %s (%s)%n", file, Format.bytes(page.length));
    return 0;
  }

  private static RunDir requireDirectory(String location, String what) throws java.io.IOException {
    RunDir dir = RunDir.of(location);
    if (!dir.exists()) {
      throw new UsageException("report: " + what + " " + location + " is not a directory; expected a run directory"
          + " (the --run-dir of generate, or run.dir of the run file).");
    }
    return dir;
  }
}
