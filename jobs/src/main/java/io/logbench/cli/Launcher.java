package io.logbench.cli;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import sun.misc.Signal;

/**
 * The entry point of {@code java -jar logbench.jar}: runs the command in a second JVM, with a JIT
 * for runs of minutes ({@link #jit}), that maps a class-data sharing archive of the classes the
 * command loads, so that JVM starts without loading, parsing and verifying them again (about 2
 * CPU-seconds of a short {@code generate}; see docs/benchmarks.md). Java 17 has no way to name an archive from a jar and can only write one
 * when a JVM exits ({@code -XX:ArchiveClassesAtExit}), so the archive is made on the first run of
 * each command with this jar and this JDK, and used from the second on. On Java 25 and later the
 * archive is an ahead-of-time cache ({@link #AOT_CACHE_SINCE}), made and used the same way. It
 * lives in {@code $LOGBENCH_CDS_DIR}, else {@code ~/.cache/logbench/cds}, one file per jar (path,
 * size, time), JDK and command.
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
  /** The command's main class. */
  static final String MAIN = "io.logbench.cli.Main";
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

  /**
   * {@link #PERF_DATA_EVERY_SECOND}, unless the JVM was given its own performance-data options or
   * is Java 25 or later, which has no such sampling (the option is gone, with a warning).
   */
  static List<String> perfData(int feature, List<String> jvm) {
    return feature >= 25 || anyStartsWith(jvm, "-XX:PerfDataSamplingInterval") || anyStartsWith(jvm, "-XX:+UsePerfData")
        || anyStartsWith(jvm, "-XX:-UsePerfData") ? List.of() : List.of(PERF_DATA_EVERY_SECOND);
  }

  /** JVM options after which the command runs in this JVM: the user manages the JVM themselves. */
  private static final List<String> OWN_JVM = List.of("-XX:SharedArchiveFile", "-XX:ArchiveClassesAtExit",
      "-Xshare", "-XX:StartFlightRecording", "-XX:+FlightRecorder", "-agentlib", "-agentpath", "-javaagent",
      "-XX:DumpLoadedClassList", "-XX:SharedClassListFile", "-XX:AOTCache", "-XX:AOTMode", "-XX:AOTConfiguration");

  /**
   * The first Java whose JVM keeps an ahead-of-time cache (JEP 483): the classes of the archive,
   * and also loaded and linked, with the lambdas and proxies of the class path's loaders resolved,
   * which a dynamic archive leaves to every start. A short {@code generate} from {@code java -jar}
   * to exit, alternating: a median of 3.7 CPU-s on Java 25 with it, 3.9 with a dynamic archive on
   * the same JDK, 4.1 on Java 17 (docs/benchmarks.md, seventeenth round).
   */
  static final int AOT_CACHE_SINCE = 25;

  /**
   * The class-data options of the command's JVM on Java {@code feature}: use {@code archive}, or,
   * when {@code dumping} is not null, make it. Java 17 writes a dynamic archive to {@code dumping}
   * when the JVM exits; Java 25 records what the run loaded in {@link #aotConfiguration}, and
   * {@link #aotCreate}, a JVM of its own, makes the cache from it. They come before the user's
   * options, so that a user's {@code -Xlog} of these tags still shows.
   */
  static List<String> archiveOptions(int feature, Path archive, Path dumping) {
    List<String> o = new ArrayList<>();
    // an archive that does not fit (another JDK build, another class path) is not used, without a
    // word; making one warns about every class it leaves out
    if (feature >= AOT_CACHE_SINCE) {
      o.add("-Xlog:aot*=off");
      o.add("-Xlog:cds*=off");
      if (dumping == null) {
        o.add("-XX:AOTCache=" + archive);
      } else {
        // the JVM prints "AOTConfiguration recorded: <file>" on standard output at exit,
        // whatever -Xlog says: output of the command's own that a pipe reading it does not expect
        o.add("-XX:+UnlockDiagnosticVMOptions");
        o.add("-XX:-DisplayVMOutput");
        o.add("-XX:AOTMode=record");
        o.add("-XX:AOTConfiguration=" + aotConfiguration(dumping));
      }
    } else {
      o.add("-Xlog:cds=off");
      o.add("-Xlog:cds+dynamic=off");
      o.add(dumping == null ? "-XX:SharedArchiveFile=" + archive : "-XX:ArchiveClassesAtExit=" + dumping);
      o.add("-Xshare:auto");
    }
    o.addAll(quietUnsafe(feature));
    return o;
  }

  /**
   * On Java 24 and later: Pekko (Flink's RPC) reads fields through {@code sun.misc.Unsafe}, which
   * these warn about on standard error at its first use (JEP 498), and Netty's epoll loads its JNI
   * library (JEP 472's warning). Allowed, as on Java 17, without the warnings.
   */
  static List<String> quietUnsafe(int feature) {
    return feature >= 24 ? List.of("--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED")
        : List.of();
  }

  /** Where the command's JVM records the classes of an ahead-of-time cache made to {@code dumping}. */
  static Path aotConfiguration(Path dumping) {
    return dumping.resolveSibling(dumping.getFileName() + "conf");
  }

  /**
   * The JVM that makes the ahead-of-time cache {@code dumping} from what the command's JVM
   * recorded: {@code java} with the command JVM's options {@code common} (a cache made with other
   * options does not fit them) and its class path {@code jar}, no main class.
   */
  static List<String> aotCreate(String java, Path dumping, List<String> common, Path jar) {
    List<String> c = new ArrayList<>(List.of(java, "-Xlog:aot*=off", "-Xlog:cds*=off", "-XX:AOTMode=create",
        "-XX:AOTConfiguration=" + aotConfiguration(dumping), "-XX:AOTCache=" + dumping));
    c.addAll(quietUnsafe(AOT_CACHE_SINCE));
    c.addAll(common);
    c.add("-cp");
    c.add(jar.toString());
    return c;
  }

  /** The file name ending of the archive on Java {@code feature}. */
  static String archiveSuffix(int feature) {
    return feature >= AOT_CACHE_SINCE ? ".aot" : ".jsa";
  }

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
  record Plan(List<String> command, Path archive, Path dumping, List<String> create, boolean console) {

    /** Starts the command's JVM, hands signals on, waits for it; its exit code. */
    int run() throws IOException, InterruptedException {
      Process child = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.INHERIT)
          .redirectError(ProcessBuilder.Redirect.INHERIT).start();
      forward("TERM", child, false);
      forward("INT", child, console);
      int code = waitFor(child);
      if (dumping != null) {
        try {
          if (create != null && Files.isRegularFile(aotConfiguration(dumping))) {
            // after the command's output, and as quiet: it says what it writes on standard output
            waitFor(new ProcessBuilder(create).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start());
          }
          if (Files.isRegularFile(dumping) && Files.size(dumping) > 0) {
            Files.move(dumping, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            prune(archive.getParent(), KEPT);
          }
        } catch (IOException e) {
          // no archive this time: the next run makes one
        } finally {
          Files.deleteIfExists(dumping);
          Files.deleteIfExists(aotConfiguration(dumping));
        }
      }
      return code;
    }

    private static int waitFor(Process p) {
      while (true) {
        try {
          return p.waitFor();
        } catch (InterruptedException e) {
          // keep waiting: this JVM ends after the ones it started
        }
      }
    }

    private static void forward(String name, Process child, boolean fromTerminal) {
      try {
        Signal.handle(new Signal(name), new Forward(name, child, fromTerminal));
      } catch (IllegalArgumentException e) {
        // an ignored signal (a background job of a non-interactive shell) stays ignored
      }
    }
  }

  /** Hands a signal on to the command's JVM (a class, not a lambda: see {@link #anyStartsWith}). */
  private static final class Forward implements sun.misc.SignalHandler {
    private final String name;
    private final Process child;
    private final boolean fromTerminal;

    Forward(String name, Process child, boolean fromTerminal) {
      this.name = name;
      this.child = child;
      this.fromTerminal = fromTerminal;
    }

    @Override
    public void handle(Signal s) {
      if (fromTerminal) {
        return; // the terminal sent it to the command's JVM too
      }
      try {
        new ProcessBuilder("kill", "-" + name, Long.toString(child.pid())).inheritIO().start();
      } catch (IOException e) {
        child.destroy(); // SIGTERM: the command still stops cleanly
      }
    }
  }

  /** The launch of {@code args}, or null to run the command in this JVM. */
  static Plan plan(String[] args) {
    if (off(System.getProperty(SWITCH)) || off(System.getenv(SWITCH.replace('.', '_').toUpperCase(Locale.ROOT)))
        || System.getProperty(LAUNCHED) != null) {
      return null;
    }
    List<String> jvm = jvmOptions();
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
    int feature = Runtime.version().feature();
    Path archive;
    try {
      archive = dir.resolve(key(jar, System.getProperty("java.home"), System.getProperty("java.vm.version"), jvm) + "-"
          + command + archiveSuffix(feature));
    } catch (IOException e) {
      return null;
    }
    boolean console = System.console() != null;
    Path dumping = Files.isRegularFile(archive) ? null
        : dir.resolve(archive.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> common = new ArrayList<>(jvm);
    if (!anyStartsWith(jvm, "-XX:Tier") && !anyStartsWith(jvm, "-XX:-TieredCompilation")) {
      common.addAll(jit(command));
    }
    common.addAll(perfData(feature, jvm));
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(archiveOptions(feature, archive, dumping));
    cmd.addAll(common);
    cmd.add("-D" + LAUNCHED + "=" + ProcessHandle.current().pid());
    if (console) {
      cmd.add("-D" + CONSOLE + "=true");
    }
    cmd.add("-cp");
    cmd.add(jar.toString());
    cmd.add(MAIN); // a name: loading Main here would cost this JVM the parsing of a class it never runs
    cmd.addAll(List.of(args));
    List<String> create = dumping != null && feature >= AOT_CACHE_SINCE ? aotCreate(java, dumping, common, jar) : null;
    return new Plan(cmd, archive, dumping, create, console);
  }

  /**
   * Whether an option starts with {@code prefix}. This JVM's own start is part of every run's
   * (about 0.4 CPU-s of a short generate's 4): its code uses no lambda, stream, JMX or message
   * digest, each of which loads and links classes that the JDK's own archive does not hold.
   */
  private static boolean anyStartsWith(List<String> options, String prefix) {
    for (String o : options) {
      if (o.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /**
   * This JVM's options: those before {@code -jar} on its command line, read from the system
   * ({@code /proc/self/cmdline} on Linux). When the command line cannot say them all (options from
   * {@code JDK_JAVA_OPTIONS}, {@code JAVA_TOOL_OPTIONS} or {@code _JAVA_OPTIONS}, an {@code @}
   * argument file, no {@code -jar}), the runtime's management bean's list, which costs this JVM
   * a few hundred classes more.
   */
  static List<String> jvmOptions() {
    List<String> line = null;
    if (System.getenv("JDK_JAVA_OPTIONS") == null && System.getenv("JAVA_TOOL_OPTIONS") == null
        && System.getenv("_JAVA_OPTIONS") == null) {
      String[] args = ProcessHandle.current().info().arguments().orElse(null);
      line = args == null ? null : optionsBeforeJar(args);
    }
    return line != null ? line : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();
  }

  /** The options before {@code -jar} of a {@code java} command line's arguments, or null when unknown. */
  static List<String> optionsBeforeJar(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].startsWith("@")) {
        return null;
      }
      if (args[i].equals("-jar")) {
        return List.of(args).subList(0, i);
      }
    }
    return null;
  }

  /** Archives kept in the folder: each is tens of megabytes, and every build of the jar makes new ones. */
  static final int KEPT = 12;

  /** Deletes all but the {@code kept} most recent archives in {@code dir}. */
  static void prune(Path dir, int kept) throws IOException {
    List<Path> all;
    try (var files = Files.list(dir)) {
      all = new ArrayList<>(files.filter(f -> f.getFileName().toString().endsWith(".jsa")
          || f.getFileName().toString().endsWith(".aot")).toList());
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

  /**
   * A name for the archive of {@code jar} on a JDK with the JVM options {@code jvm}: a new jar
   * build, JDK or set of options gets a new archive. An archive or cache made with other options
   * can be of no use to a JVM (Java 25 leaves a cache unused, silently, when an option such as
   * {@code -XX:+UseCompactObjectHeaders} differs), so every option counts
   * but the system properties ({@code -D}) and logging ({@code -Xlog}), which never decide it and
   * can differ from run to run.
   */
  static String key(Path jar, String javaHome, String vmVersion, List<String> jvm) throws IOException {
    StringBuilder id = new StringBuilder().append(jar.toAbsolutePath()).append(File.pathSeparator)
        .append(Files.size(jar)).append(File.pathSeparator).append(Files.getLastModifiedTime(jar).toMillis())
        .append(File.pathSeparator).append(javaHome).append(File.pathSeparator).append(vmVersion);
    for (String o : jvm) {
      if (!o.startsWith("-D") && !o.startsWith("-Xlog")) {
        id.append('\0').append(o);
      }
    }
    // two checksums of 32 bits, not a message digest: a name, not a secret, and no security provider to load
    byte[] b = id.toString().getBytes(StandardCharsets.UTF_8);
    CRC32 crc = new CRC32();
    crc.update(b);
    CRC32C crcC = new CRC32C();
    crcC.update(b);
    return HexFormat.of().toHexDigits(crc.getValue() << 32 | crcC.getValue());
  }
}
