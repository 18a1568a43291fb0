package io.logbench.cli;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import sun.misc.Signal;

/**
 * The entry point of {@code java -jar logbench.jar}: runs the command in a second JVM, with a JIT
 * for runs of minutes ({@link #jit}), that maps a class-data sharing archive of the classes the
 * command loads, so that JVM starts without loading, parsing and verifying them again (about 2
 * CPU-seconds of a short {@code generate}; see docs/benchmarks.md). Java 17 has no way to name an archive from a jar and can only write one
 * when a JVM exits ({@code -XX:ArchiveClassesAtExit}), so the archive is made on the first run of
 * each command with this jar and this JDK, and used from the second on. It lives in {@code
 * $LOGBENCH_CDS_DIR}, else {@code ~/.cache/logbench/cds}, one file per jar (path, size, time),
 * JDK and command.
 *
 * <p>This JVM only starts the other and waits for it, and exits with its exit code. The command's
 * JVM gets this JVM's options, its standard output and error (the terminal, a pipe, a file), and
 * on its standard input a pipe from this JVM: when this JVM ends however it ends ({@code kill
 * -9}), the pipe closes and the command's JVM kills itself at once too ({@link Main}), as the one JVM of a
 * direct run would have. SIGTERM is handed on; SIGINT too, except from a terminal, whose Ctrl-C
 * reaches both JVMs already (the command must see it once: a second one stops a run at once).
 *
 * <p>The command runs in this JVM instead when {@code -Dlogbench.launcher=off} or {@code
 * LOGBENCH_LAUNCHER=off} says so, when the JVM was given its own class-data, recording or agent
 * options (a JFR recording would be written by both), when the archive's folder cannot be made,
 * or when the jar is not a file.
 */
public final class Launcher {

  /** The system property (and, upper case, environment variable) that turns the second JVM off. */
  public static final String SWITCH = "logbench.launcher";
  /** Set on the command's JVM: it was started by a launcher, whose end it follows. */
  public static final String LAUNCHED = "logbench.launched";
  /** Set on the command's JVM when the launcher's standard streams are a terminal. */
  public static final String CONSOLE = "logbench.console";

  /**
   * The JIT of the command's JVM, unless the JVM was given its own {@code -XX:Tier...} options.
   * C2's compiles of Flink's, Netty's and logbench's start-up and per-request code cost 8 to 10
   * CPU-seconds in the first minutes of a run, more than its faster code saves in a run of
   * minutes (measured in docs/benchmarks.md: 100k lines/s for 120 s, 34.5 CPU-s with C1 alone
   * against 40.2 with C2's thresholds raised; 20k lines/s for 60 s, 13.3 to 15.7 against 15.6 to
   * 18.5 raised and 20.9 to 21.5 with the defaults): commands that run jobs of minutes get C1
   * alone. {@code dataset} and {@code publish} make lines as fast as the machine can for as long as a month
   * takes, where C2's code pays: they get C2, for code that stays hot ({@link #LATER_C2}).
   */
  static List<String> jit(String command) {
    return command.equals("dataset") || command.equals("publish") ? LATER_C2 : C1_ONLY;
  }

  /** C1 alone, at its full optimisation (no profiling code). */
  static final List<String> C1_ONLY = List.of("-XX:TieredStopAtLevel=1");

  /**
   * C2 compiles a method only after 8 to 30 times the invocations and loops of the defaults
   * (Tier4InvocationThreshold 5,000, MinInvocation 600, Compile 15,000, BackEdge 40,000): start-up
   * code that runs hot for a moment is left to C1, while a long run's loops still pass these
   * thresholds within seconds.
   */
  static final List<String> LATER_C2 = List.of("-XX:Tier4InvocationThreshold=100000",
      "-XX:Tier4MinInvocationThreshold=20000", "-XX:Tier4CompileThreshold=120000", "-XX:Tier4BackEdgeThreshold=400000");

  /**
   * The command's JVM samples its performance counters (what {@code jstat} and {@code jps} read)
   * once a second instead of every 50 ms: the sampling was the busiest thread of an idle canary
   * (20 wake-ups a second, a tenth of its CPU; docs/benchmarks.md, eleventh round). The counters
   * that events update (collections, compilations, class loading) are as before.
   */
  static final String PERF_DATA_EVERY_SECOND = "-XX:PerfDataSamplingInterval=1000";

  /** {@link #PERF_DATA_EVERY_SECOND}, unless the JVM was given its own performance-data options. */
  static List<String> perfData(List<String> jvm) {
    return jvm.stream().anyMatch(a -> a.startsWith("-XX:PerfDataSamplingInterval") || a.endsWith("UsePerfData"))
        ? List.of() : List.of(PERF_DATA_EVERY_SECOND);
  }

  /** JVM options after which the command runs in this JVM: the user manages the JVM themselves. */
  private static final List<String> OWN_JVM = List.of("-XX:SharedArchiveFile", "-XX:ArchiveClassesAtExit",
      "-Xshare", "-XX:StartFlightRecording", "-XX:+FlightRecorder", "-agentlib", "-agentpath", "-javaagent",
      "-XX:DumpLoadedClassList", "-XX:SharedClassListFile");

  private Launcher() {}

  public static void main(String[] args) throws Exception {
    Plan plan = plan(args);
    if (plan == null) {
      Main.main(args);
      return;
    }
    System.exit(plan.run());
  }

  /** What the launcher does: the command's JVM's command line and the archive it uses or makes. */
  record Plan(List<String> command, Path archive, Path dumping, boolean console) {

    /** Starts the command's JVM, hands signals on, waits for it; its exit code. */
    int run() throws IOException, InterruptedException {
      Process child = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.INHERIT)
          .redirectError(ProcessBuilder.Redirect.INHERIT).start();
      forward("TERM", child, false);
      forward("INT", child, console);
      int code;
      while (true) {
        try {
          code = child.waitFor();
          break;
        } catch (InterruptedException e) {
          // keep waiting: this JVM ends after the command's
        }
      }
      if (dumping != null) {
        try {
          if (Files.size(dumping) > 0) {
            Files.move(dumping, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            prune(archive.getParent(), KEPT);
          }
        } catch (IOException e) {
          // no archive this time: the next run makes one
        } finally {
          Files.deleteIfExists(dumping);
        }
      }
      return code;
    }

    private static void forward(String name, Process child, boolean fromTerminal) {
      try {
        Signal.handle(new Signal(name), s -> {
          if (fromTerminal) {
            return; // the terminal sent it to the command's JVM too
          }
          try {
            new ProcessBuilder("kill", "-" + name, Long.toString(child.pid())).inheritIO().start();
          } catch (IOException e) {
            child.destroy(); // SIGTERM: the command still stops cleanly
          }
        });
      } catch (IllegalArgumentException e) {
        // an ignored signal (a background job of a non-interactive shell) stays ignored
      }
    }
  }

  /** The launch of {@code args}, or null to run the command in this JVM. */
  static Plan plan(String[] args) {
    if (off(System.getProperty(SWITCH)) || off(System.getenv(SWITCH.replace('.', '_').toUpperCase(Locale.ROOT)))
        || System.getProperty(LAUNCHED) != null) {
      return null;
    }
    List<String> jvm = ManagementFactory.getRuntimeMXBean().getInputArguments();
    for (String a : jvm) {
      for (String own : OWN_JVM) {
        if (a.startsWith(own)) {
          return null;
        }
      }
    }
    Path jar;
    try {
      jar = Path.of(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | RuntimeException e) {
      return null;
    }
    if (!Files.isRegularFile(jar)) {
      return null;
    }
    Path dir = archiveDir();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      return null;
    }
    String command = args.length == 0 || args[0].startsWith("-") ? "none" : args[0].replaceAll("[^A-Za-z0-9_-]", "_");
    Path archive;
    try {
      archive = dir.resolve(key(jar, System.getProperty("java.home"), System.getProperty("java.vm.version")) + "-"
          + command + ".jsa");
    } catch (IOException e) {
      return null;
    }
    boolean console = System.console() != null;
    Path dumping = Files.isRegularFile(archive) ? null
        : dir.resolve(archive.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvm);
    cmd.add(dumping == null ? "-XX:SharedArchiveFile=" + archive : "-XX:ArchiveClassesAtExit=" + dumping);
    // an archive that does not fit (another JDK build) is not used, without a word; making one
    // warns about every class it leaves out
    cmd.add("-Xshare:auto");
    cmd.add("-Xlog:cds=off");
    cmd.add("-Xlog:cds+dynamic=off");
    if (jvm.stream().noneMatch(a -> a.startsWith("-XX:Tier") || a.startsWith("-XX:-TieredCompilation"))) {
      cmd.addAll(jit(command));
    }
    cmd.addAll(perfData(jvm));
    cmd.add("-D" + LAUNCHED + "=" + ProcessHandle.current().pid());
    if (console) {
      cmd.add("-D" + CONSOLE + "=true");
    }
    cmd.add("-cp");
    cmd.add(jar.toString());
    cmd.add(Main.class.getName());
    cmd.addAll(List.of(args));
    return new Plan(cmd, archive, dumping, console);
  }

  /** Archives kept in the folder: each is tens of megabytes, and every build of the jar makes new ones. */
  static final int KEPT = 12;

  /** Deletes all but the {@code kept} most recent archives in {@code dir}. */
  static void prune(Path dir, int kept) throws IOException {
    List<Path> all;
    try (var files = Files.list(dir)) {
      all = new ArrayList<>(files.filter(f -> f.getFileName().toString().endsWith(".jsa")).toList());
    }
    all.sort((a, b) -> Long.compare(modified(b), modified(a)));
    for (Path old : all.subList(Math.min(kept, all.size()), all.size())) {
      Files.deleteIfExists(old);
    }
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }

  private static boolean off(String v) {
    return v != null && (v.equalsIgnoreCase("off") || v.equalsIgnoreCase("false"));
  }

  /** {@code $LOGBENCH_CDS_DIR}, else {@code ~/.cache/logbench/cds}. */
  static Path archiveDir() {
    String dir = System.getenv("LOGBENCH_CDS_DIR");
    return dir != null && !dir.isBlank() ? Path.of(dir)
        : Path.of(System.getProperty("user.home"), ".cache", "logbench", "cds");
  }

  /** A name for the archive of {@code jar} on a JDK: a new jar build or JDK gets a new archive. */
  static String key(Path jar, String javaHome, String vmVersion) throws IOException {
    String id = jar.toAbsolutePath() + File.pathSeparator + Files.size(jar) + File.pathSeparator
        + Files.getLastModifiedTime(jar).toMillis() + File.pathSeparator + javaHome + File.pathSeparator + vmVersion;
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("The JDK has no SHA-256.", e);
    }
  }
}
