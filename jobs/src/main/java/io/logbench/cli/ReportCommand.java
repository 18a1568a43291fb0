package io.logbench.cli;

import io.logbench.report.Reports;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * {@code report RUN_DIR [--out FILE] [--compare OTHER_RUN_DIR] [--config FILE]}: (re)builds the
 * run directory's {@code report.html} from its files, one page that opens offline; with {@code
 * --compare}, the run (baseline) and the other (contender) side by side. {@code --config} names
 * the run file when the one in run.json has moved. Exit code 0 when the page was written, 1 when
 * it could not be, 2 when a directory or the run file does not exist.
 */
final class ReportCommand {

  private ReportCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err) throws Exception {
    Args args = Args.parse("report", argv, Set.of(), Set.of("--out", "--compare", "--config"));
    Path runDir = Path.of(args.positional(0, "the run directory (RUN_DIR)"));
    args.expectPositionals(1);
    requireDirectory(runDir, "RUN_DIR");
    Path other = args.option("--compare") == null ? null : Path.of(args.option("--compare"));
    if (other != null) {
      requireDirectory(other, "--compare");
    }
    Path config = args.option("--config") == null ? null : Path.of(args.option("--config"));
    if (config != null && !Files.isRegularFile(config)) {
      throw new UsageException("report: --config " + config + " is not a file; expected the run file of the run.");
    }
    Path file = args.option("--out") != null ? Path.of(args.option("--out"))
        : other != null ? runDir.resolve("compare.html") : runDir.resolve(Reports.FILE);
    long bytes = other == null ? Reports.write(runDir, file, config)
        : Reports.writeCompare(runDir, other, file, config);
    out.printf(Locale.ROOT, "wrote %s (%s)%n", file, Format.bytes(bytes));
    return 0;
  }

  private static void requireDirectory(Path dir, String what) {
    if (!Files.isDirectory(dir)) {
      throw new UsageException("report: " + what + " " + dir + " is not a directory; expected a run directory"
          + " (the --run-dir of generate, or run.dir of the run file).");
    }
  }
}
