package io.logbench.cli;

import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.quickstart.QuickstartFiles;
import io.logbench.quickstart.ServerProcess;
import io.logbench.quickstart.ServersJar;
import io.logbench.verify.VerifyOutputs;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code quickstart [--run-dir DIR] [--keep] [--quiet] [--prometheus HOST:PORT]}: the whole loop
 * on one machine. Starts a real Kafka (KRaft) and a real OpenSearch as child JVMs on free loopback
 * ports, runs {@code generate} and then {@code verify} on the quickstart hour (config/quickstart.yaml:
 * OpenSearch, Kafka and files) in this JVM, prints the verdicts per backend and where the run's
 * files are, and stops the servers (also on Ctrl-C; {@code --keep} leaves them up and says how to
 * use and stop them). Exit code 0 only when every window of every backend is OK.
 */
@Command(name = "quickstart", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = {
      "Start a real Kafka and a real OpenSearch on loopback (child JVMs), run generate and verify"
          + " on the quickstart hour (OpenSearch, Kafka, files), print the verdicts, and stop the"
          + " servers.",
      "Exits 0 only when every window of every backend is OK."
    })
final class QuickstartCommand implements Callable<Integer> {

  /** The lines topic: records stamped May 2021, so no time retention. */
  static final String LINES_TOPIC = "logbench-quickstart";
  static final String LEDGER_TOPIC = "logbench-ledger";
  static final Map<String, List<String>> JVM_OPTIONS = Map.of(
      "kafka", List.of("-Xmx768m"),
      "opensearch", List.of("-Xms1g", "-Xmx1g"));

  @Option(names = "--run-dir", paramLabel = "DIR",
      description = "Where the run's files go (default: runs/quickstart-<date>-<time>).")
  Path runDirOption;

  @Option(names = "--keep", description = "Leave the servers running and print their addresses.")
  boolean keep;

  @Option(names = "--quiet", description = "No progress lines while generate and verify run.")
  boolean quiet;

  @Mixin PrometheusOption prometheus = new PrometheusOption();

  @Option(names = "--start-timeout", paramLabel = "DURATION",
      description = "How long each server may take to start (default: 3m).")
  Duration startTimeout = Duration.ofMinutes(3);

  private final PrintStream out;
  private final PrintStream err;

  QuickstartCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    Main.positive("quickstart", "--start-timeout", startTimeout);
    long t0 = System.nanoTime();
    Path runDir = runDirOption != null ? runDirOption
        : Path.of("runs", "quickstart-"
            + LocalDateTime.now().format(DateTimeFormatter.ofPattern("uuuuMMdd-HHmmss")));
    if (Files.exists(runDir.resolve("run.json"))) {
      throw new UsageException("quickstart: --run-dir " + runDir + " already holds a run (run.json);"
          + " expected a new or empty directory.");
    }
    Path jar;
    try {
      jar = ServersJar.find();
    } catch (IllegalStateException e) {
      throw new UsageException("quickstart: " + e.getMessage());
    }
    // the shutdown hook may read the list while servers are still being added
    List<ServerProcess> servers = new java.util.concurrent.CopyOnWriteArrayList<>();
    // Ctrl-C stops the servers, with --keep too until quickstart has handed them over
    Thread stopOnExit = new Thread(() -> stopAll(servers, null), "logbench-quickstart-stop");
    Runtime.getRuntime().addShutdownHook(stopOnExit);
    boolean stopped = false;
    boolean handedOver = false;
    try {
      err.printf(Locale.ROOT, "quickstart: starting Kafka and OpenSearch on 127.0.0.1 (logs in %s)%n",
          runDir.resolve("servers"));
      for (String s : List.of("kafka", "opensearch")) {
        servers.add(ServerProcess.start(jar, s, runDir.resolve("servers").resolve(s + ".log"), !keep,
            JVM_OPTIONS.get(s)));
      }
      Map<String, String> address = new LinkedHashMap<>();
      for (ServerProcess s : servers) {
        try {
          address.put(s.server(), s.awaitReady(startTimeout));
        } catch (IllegalStateException e) {
          err.println("quickstart: " + e.getMessage());
          return Main.FAILED;
        }
      }
      long up = System.nanoTime();
      err.printf(Locale.ROOT, "quickstart: kafka at %s and opensearch at %s, up in %.1f s%n",
          address.get("kafka"), address.get("opensearch"), (up - t0) / 1e9);
      createTopics(address.get("kafka"));

      Path runFile = QuickstartFiles.writeRunFile(runDir, QuickstartFiles.template(), Map.of(
          "OPENSEARCH_URL", address.get("opensearch"),
          "KAFKA_BOOTSTRAP", address.get("kafka"),
          "LOGBENCH_RUN_DIR", runDir.toString()));
      RunConfig config = ConfigLoader.load(runFile);

      int generated = Main.commandLine(out, err).execute(commandArgs("generate", runFile, runDir));
      long gen = System.nanoTime();
      err.printf(Locale.ROOT, "quickstart: generate took %.1f s (exit code %d)%n",
          (gen - up) / 1e9, generated);
      if (generated == Main.USAGE) {
        return Main.FAILED;
      }
      int verified = Main.commandLine(out, err).execute(commandArgs("verify", runFile, runDir));
      long ver = System.nanoTime();
      err.printf(Locale.ROOT, "quickstart: verify took %.1f s (exit code %d)%n",
          (ver - gen) / 1e9, verified);

      Path verdicts = runDir.resolve(VerifyOutputs.VERDICTS);
      Map<String, Map<String, Integer>> counts = Files.exists(verdicts)
          ? QuickstartFiles.verdictCounts(verdicts) : Map.of();
      List<String> why = new ArrayList<>();
      if (generated != 0) {
        why.add("generate exited with " + generated + " (see its lines above).");
      }
      if (verified != 0) {
        why.add("verify exited with " + verified + " (see its lines above).");
      }
      for (var b : config.backends()) {
        Map<String, Integer> c = counts.getOrDefault(b.name(), Map.of());
        int windows = c.values().stream().mapToInt(Integer::intValue).sum();
        int ok = c.getOrDefault("OK", 0);
        if (windows == 0 || ok != windows) {
          why.add("backend " + b.name() + " has " + ok + " OK window(s) of " + windows + ".");
        }
      }

      out.println();
      printVerdicts(counts, out);
      Path report = reportOf(runDir);
      out.println("run directory: " + runDir + " (run file " + runFile.getFileName()
          + ", ledger.csv, summary.csv, verdicts.csv, missing.csv"
          + (report != null ? ", " + report.getFileName() : "") + ")");
      if (report != null) {
        out.println("report: " + report);
      }
      if (keep) {
        handedOver = true;
        printKept(servers, runFile, out);
      } else {
        stopped = true;
        stopAll(servers, err);
      }
      double total = (System.nanoTime() - t0) / 1e9;
      out.printf(Locale.ROOT,
          "quickstart: servers %.1f s, generate %.1f s, verify %.1f s; %.1f s in all%s%n",
          (up - t0) / 1e9, (gen - up) / 1e9, (ver - gen) / 1e9, total, keep ? "" : "; servers stopped");
      if (why.isEmpty()) {
        int windows = counts.values().stream().flatMap(m -> m.values().stream())
            .mapToInt(Integer::intValue).sum();
        out.printf(Locale.ROOT, "verdict: OK: all %d windows of %d backends hold every line that was sent,"
            + " once.%n", windows, counts.size());
        return 0;
      }
      out.println("verdict: FAILED");
      why.forEach(w -> err.println("quickstart: " + w));
      return Main.FAILED;
    } finally {
      // a run that failed before its end stops the servers even with --keep
      if (!stopped && !handedOver) {
        stopAll(servers, err);
      }
      try {
        Runtime.getRuntime().removeShutdownHook(stopOnExit);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down: the hook stops the servers
      }
    }
  }

  private String[] commandArgs(String command, Path runFile, Path runDir) {
    List<String> args =
        new ArrayList<>(List.of(command, runFile.toString(), "--run-dir", runDir.toString()));
    if (quiet) {
      args.add("--quiet");
    }
    args.addAll(prometheus.args());
    return args.toArray(String[]::new);
  }

  /** The lines topic (no time retention: the records are stamped May 2021) and the ledger's. */
  static void createTopics(String bootstrap) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.createTopics(List.of(
              new NewTopic(LINES_TOPIC, 2, (short) 1).configs(Map.of("retention.ms", "-1")),
              new NewTopic(LEDGER_TOPIC, 1, (short) 1)))
          .all().get(60, TimeUnit.SECONDS);
    }
  }

  /**
   * The run's report.html, or null when there is none. The report is written by generate and
   * verify themselves (when the build has the report command); quickstart only points to it.
   */
  static Path reportOf(Path runDir) {
    Path report = runDir.resolve("report.html");
    return Files.isRegularFile(report) ? report : null;
  }

  static void printVerdicts(Map<String, Map<String, Integer>> counts, PrintStream out) {
    List<String> statuses = List.of("OK", "MISSING", "DUPLICATE", "REJECTED", "PENDING");
    out.printf(Locale.ROOT, "%-16s %8s %8s %8s %10s %9s %8s%n", "backend", "windows", "OK", "MISSING",
        "DUPLICATE", "REJECTED", "PENDING");
    for (var e : counts.entrySet()) {
      Map<String, Integer> c = e.getValue();
      out.printf(Locale.ROOT, "%-16s %8d", e.getKey(),
          c.values().stream().mapToInt(Integer::intValue).sum());
      for (String s : statuses) {
        out.printf(Locale.ROOT, s.equals("DUPLICATE") ? " %10d" : s.equals("REJECTED") ? " %9d" : " %8d",
            c.getOrDefault(s, 0));
      }
      out.println();
    }
  }

  private static void printKept(List<ServerProcess> servers, Path runFile, PrintStream out) {
    ServerProcess kafka = servers.get(0);
    ServerProcess opensearch = servers.get(1);
    out.println();
    out.println("The servers are still running (--keep):");
    for (ServerProcess s : servers) {
      out.printf(Locale.ROOT, "  %-10s %-28s pid %d, log %s%n", s.server(), s.address(), s.pid(), s.log());
    }
    out.println("Point run files at them (each run counts only its own lines):");
    out.println("  OPENSEARCH_URL=" + opensearch.address() + " KAFKA_BOOTSTRAP=" + kafka.address()
        + " java -jar jobs/target/logbench.jar generate config/quickstart.yaml");
    out.println("  java -jar jobs/target/logbench.jar verify " + runFile + "   # this run, again");
    out.println("Stop them (each deletes its data): kill " + kafka.pid() + " " + opensearch.pid());
  }

  /** Stops every server; reports one that had to be killed on {@code err} when given. */
  static void stopAll(List<ServerProcess> servers, PrintStream err) {
    // SIGTERM to all first: they stop side by side
    servers.forEach(ServerProcess::signalStop);
    for (ServerProcess s : servers) {
      boolean clean = s.stop();
      if (err != null && !clean) {
        err.println("quickstart: " + s.server() + " did not stop within "
            + ServerProcess.STOP_TIMEOUT.toSeconds() + " s and was killed.");
      }
    }
  }
}
