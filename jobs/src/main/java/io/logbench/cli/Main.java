package io.logbench.cli;

import io.logbench.config.ConfigException;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * The command line: {@code java -jar logbench.jar <command> ...}. Exit codes: 0 done, 1 the run
 * failed, 2 the command line or the run file is wrong (nothing ran).
 */
public final class Main {

  static final String USAGE =
      String.join(
          "\n",
          "usage: logbench <command> [arguments]",
          "",
          "commands:",
          "  plan CONFIG [--window DURATION] [--csv] [--start TIME]",
          "      total lines and bytes, duration, and the exact line count of every window",
          "  dataset CONFIG --out DIR [--from TIME] [--until TIME] [--parallelism N]",
          "      write the dataset (or a time slice) as files in the seed's layout, on Flink",
          "  generate CONFIG [--run-dir DIR]",
          "      send the run to every backend of CONFIG (one pipeline each), print per-backend",
          "      totals and ladder steps, write summary.csv and steps.csv; exit 1 if a line was",
          "      not acknowledged in at-least-once mode or a load test crossed a threshold",
          "  verify CONFIG [--run-dir DIR] [--window DURATION] [--continuous] [--settle DURATION]",
          "         [--max-wait DURATION] [--recheck DURATION] [--drill N]",
          "         [--verdicts-kafka BOOTSTRAP --verdicts-topic TOPIC]",
          "      count every backend back window by window (the run's window or a multiple of it)",
          "      against the ledger and the dataset; write",
          "      verdicts.csv, missing.csv and verify-summary.txt; exit 1 if a window is MISSING,",
          "      DUPLICATE or still PENDING (no answer), 0 otherwise (REJECTED alone is reported)",
          "  help",
          "",
          "CONFIG is a YAML run file such as config/quickstart.yaml; TIME is ISO-8601 with an",
          "offset (2021-05-01T00:00:00-03:00); DURATION is like 1m, 5m, 1h or 1d.");

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs a command and returns its exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h")) {
      (args.length == 0 ? err : out).println(USAGE);
      return args.length == 0 ? 2 : 0;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      return switch (args[0]) {
        case "plan" -> {
          PlanCommand.run(rest, out);
          yield 0;
        }
        case "dataset" -> {
          DatasetCommand.run(rest, out, err);
          yield 0;
        }
        case "generate" -> GenerateCommand.run(rest, out, err);
        case "verify" -> VerifyCommand.run(rest, out, err);
        default -> throw new UsageException(
            "unknown command " + args[0] + "; expected plan, dataset, generate, verify or help.");
      };
    } catch (UsageException e) {
      err.println("logbench: " + e.getMessage());
      err.println("run 'logbench help' for the commands and their arguments.");
      return 2;
    } catch (ConfigException e) {
      err.println("logbench: " + e.getMessage());
      return 2;
    } catch (Exception e) {
      err.println("logbench: " + args[0] + " failed: " + e);
      Throwable cause = e.getCause();
      while (cause != null) {
        err.println("  caused by: " + cause);
        cause = cause.getCause();
      }
      return 1;
    }
  }
}
