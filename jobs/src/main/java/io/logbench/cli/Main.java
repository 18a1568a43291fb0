package io.logbench.cli;

import io.logbench.config.ConfigException;
import io.logbench.config.Durations;
import io.logbench.job.FlinkEnvironments;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The command line: {@code java -jar logbench.jar <command> ...}, parsed with picocli. Every
 * command has {@code --help}; {@code --version} prints the versions. Exit codes: 0 done, 1 the run
 * failed (or verification found a loss), 2 the command line or the run file is wrong (nothing ran).
 */
@Command(
    name = "logbench",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Pushes the same deterministic logs to every log backend at a controlled rate and"
        + " counts them back, window by window.",
    synopsisSubcommandLabel = "COMMAND",
    commandListHeading = "%nCommands:%n",
    footerHeading = "%n",
    footer = {
      "CONFIG is a YAML run file such as config/quickstart.yaml; TIME is ISO-8601 with an offset"
          + " (2021-05-01T00:00:00-03:00); DURATION is like 30s, 1m, 1h or 1d.",
      "",
      "Exit codes: 0 done; 1 the run failed or verification found a loss; 2 the command line or"
          + " the run file is wrong (nothing ran); 130/143 generate stopped by Ctrl-C/SIGTERM.",
      "Run 'logbench COMMAND --help' for a command's options."
    })
public final class Main implements Callable<Integer> {

  /** Exit code of a wrong command line or run file. */
  public static final int USAGE = 2;
  /** Exit code of a run that failed. */
  public static final int FAILED = 1;

  @Spec CommandSpec spec;

  private final PrintStream err;

  private Main(PrintStream err) {
    this.err = err;
  }

  /**
   * Runs a command and exits with its code; inside a Flink cluster (a JobManager running the jar,
   * a {@code flink run} client) it returns instead, and a failure is thrown, because exiting would
   * end the JobManager's JVM with the cluster's other work.
   */
  public static void main(String[] args) {
    if (System.getProperty(Launcher.LAUNCHED) != null) {
      followLauncher();
    }
    boolean insideCluster = FlinkEnvironments.insideCluster();
    if (!insideCluster) {
      QuietCheckpoints.install(); // the command's own JVM: a cluster's log configuration is its own
    }
    int code = run(args, System.out, System.err);
    if (insideCluster) {
      if (code != 0) {
        throw new CommandFailedException(String.join(" ", args), code);
      }
      return;
    }
    System.exit(code);
  }

  /**
   * Kills this JVM when the {@link Launcher} that started it ends first (its pipe on our standard
   * input closes), as the one JVM of a direct run would have ended with it ({@code kill -9}).
   */
  private static void followLauncher() {
    Thread t = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {
          // the launcher writes nothing: only the end of the pipe matters
        }
      } catch (java.io.IOException e) {
        // a broken pipe is an end too
      }
      killSelf();
    }, "logbench-launcher-watch");
    t.setDaemon(true);
    t.start();
  }

  /**
   * Ends this JVM with SIGKILL, as the launcher was: no shutdown hook, no exit-time work. {@link
   * Runtime#halt} would still run the JVM's exit-time work, and a JVM started with {@code
   * -XX:ArchiveClassesAtExit} (the first run of a command) then writes its class-data archive for
   * seconds first, holding the run's files and locks (a canary's {@code canary.lock}, so a restart
   * meanwhile is refused) and leaving a temporary archive no launcher moves. Halts when the system's
   * {@code kill} cannot be run.
   */
  private static void killSelf() {
    try {
      new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid()))
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    } catch (java.io.IOException | InterruptedException | RuntimeException e) {
      // no kill on this system: halt
    }
    Runtime.getRuntime().halt(137); // 128 + SIGKILL, what a shell reports for the launcher
  }

  /** A command that failed inside a Flink cluster, where logbench does not exit the JVM. */
  public static final class CommandFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    CommandFailedException(String command, int exitCode) {
      super("logbench " + command + " ended with exit code " + exitCode + " (1: the run failed or found a"
          + " loss, 2: a wrong command line or run file); its output says why.");
      this.exitCode = exitCode;
    }

    public int exitCode() {
      return exitCode;
    }
  }

  /** Runs a command and returns its exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return commandLine(out, err).execute(args);
  }

  /** No command given: the usage, as an error. */
  @Override
  public Integer call() {
    spec.commandLine().usage(err);
    return USAGE;
  }

  /** The command line with every command, writing to {@code out} and {@code err}. */
  static CommandLine commandLine(PrintStream out, PrintStream err) {
    CommandLine cl = new CommandLine(new Main(err));
    cl.addSubcommand(new QuickstartCommand(out, err));
    cl.addSubcommand(new PlanCommand(out));
    cl.addSubcommand(new DatasetCommand(out, err));
    cl.addSubcommand(new PublishCommand(out, err));
    cl.addSubcommand(new GenerateCommand(out, err));
    cl.addSubcommand(new VerifyCommand(out, err));
    cl.addSubcommand(new CanaryCommand(out, err));
    cl.addSubcommand(new ReportCommand(out));
    cl.addSubcommand(new QueryCommand(out, err));
    cl.addSubcommand(new CompareCommand(out));
    cl.addSubcommand(new CommandLine.HelpCommand());
    cl.registerConverter(Duration.class, Main::duration);
    cl.registerConverter(Instant.class, Main::instant);
    cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cl.setParameterExceptionHandler((e, args) -> {
      CommandLine c = e.getCommandLine();
      String name = c.getCommandSpec().qualifiedName(" ");
      boolean root = c.getCommandSpec().parent() == null;
      if (root && e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()
          && !u.getUnmatched().get(0).startsWith("-")) {
        err.println("logbench: unknown command " + u.getUnmatched().get(0) + "; expected one of "
            + String.join(", ", c.getSubcommands().keySet()) + ".");
      } else {
        err.println("logbench: " + (root ? "" : c.getCommandName() + ": ") + e.getMessage());
      }
      err.println("Run '" + name + " --help' for its arguments.");
      return USAGE;
    });
    cl.setExecutionExceptionHandler((e, c, parsed) -> {
      if (e instanceof UsageException || e instanceof ConfigException
          || e instanceof io.logbench.run.RunRefusedException) {
        err.println("logbench: " + e.getMessage());
        return USAGE;
      }
      err.println("logbench: " + c.getCommandName() + " failed: " + e);
      for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
        err.println("  caused by: " + cause);
      }
      return FAILED;
    });
    return cl;
  }

  /** A duration such as 30s, 1m, 1h or 1d (0s allowed; commands reject it where it is not). */
  static Duration duration(String value) {
    Duration d = Durations.parse(value);
    if (d == null) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration; expected e.g. 30s, 1m, 5m, 1h or 1d.");
    }
    return d;
  }

  /** An ISO-8601 time with an offset. */
  static Instant instant(String value) {
    try {
      return OffsetDateTime.parse(value).toInstant();
    } catch (DateTimeParseException e) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a time; expected ISO-8601 with an offset, such as 2021-05-01T00:00:00-03:00.");
    }
  }

  /** {@code d} when it is positive; else a usage error naming the command and option. */
  static Duration positive(String command, String option, Duration d) {
    if (d != null && (d.isZero() || d.isNegative())) {
      throw new UsageException(command + ": " + option + " " + Durations.format(d)
          + " is not valid; expected a duration above 0.");
    }
    return d;
  }
}
