package io.logbench.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.cli.Main;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --cluster URL} against a real Flink session cluster (deploy/flink-session/session.sh: a
 * JobManager and two TaskManagers, each its own JVM on loopback), one cluster for every test of
 * the class: generate and verify of a short quickstart-like run (ten minutes of seed 004's
 * nginx-month, python-compatible) to the in-JVM OpenSearch and files find every window OK; a
 * wrong run file or URL fails in the client with exit code 2 and nothing reaches the cluster;
 * SIGTERM to the command line cancels its job; a TaskManager killed mid-run (SIGKILL) is replaced
 * with {@code session.sh add-tm}, the job restores and finishes, and verify finds every line (this
 * needs logbench's null-safe collect sink, {@code job.internal.CollectSinks}: with Flink 2.2.1's
 * own, FLINK-39330 shut the replacement TaskManager down).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterSubmitITCase {

  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  static final Path SCRIPT = ROOT.resolve("deploy/flink-session/session.sh");
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newHttpClient();
  /** Windows of the run: ten minutes of 1-minute windows. */
  static final int WINDOWS = 10;

  @TempDir static Path dir;
  static int restPort;
  static int rpcPort;
  static String url;

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  static String session() {
    return dir.resolve("session").toString();
  }

  static String script(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().remove("FLINK_CLASSPATH");
    pb.environment().put("REST_PORT", String.valueOf(restPort));
    pb.environment().put("RPC_PORT", String.valueOf(rpcPort));
    // A killed TaskManager is noticed after two failed heartbeats (Flink's rpc failure threshold),
    // so within seconds; the generous timeout keeps a slow heartbeat on busy cores from counting.
    pb.environment().put("FLINK_PROPERTIES", "heartbeat.interval: 2000\nheartbeat.timeout: 30000");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("session.sh %s finished", args[0]).isTrue();
    assertThat(p.exitValue()).as("session.sh %s exit code; output:%n%s", args[0], out).isZero();
    return out;
  }

  @BeforeAll
  static void startCluster() throws Exception {
    assertThat(ROOT.resolve("jobs/target/logbench-job.jar")).exists();
    restPort = freePort();
    rpcPort = freePort();
    url = "http://127.0.0.1:" + restPort;
    script("start", session());
    script("add-tm", session());
    assertThat(taskManagerIds()).containsExactly("tm-1", "tm-2");
    OpenSearchTestServer.get();
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (restPort != 0) {
      script("stop", session());
      // the cluster's logs outlive the temporary directory, for a failure's cause
      Path logs = Path.of("target/cluster-submit-logs");
      Files.createDirectories(logs);
      try (var files = Files.list(Path.of(session(), "log"))) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Files.copy(f, logs.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  static JsonNode rest(String path) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  static Set<String> taskManagerIds() throws Exception {
    Set<String> ids = new TreeSet<>();
    rest("/taskmanagers").path("taskmanagers").forEach(tm -> ids.add(tm.path("id").asText()));
    return ids;
  }

  /** Job name to state, of every job the cluster knows. */
  static Map<String, String> jobsById() throws Exception {
    Map<String, String> jobs = new TreeMap<>();
    rest("/jobs/overview").path("jobs").forEach(j -> jobs.put(j.path("jid").asText(),
        j.path("name").asText() + ":" + j.path("state").asText()));
    return jobs;
  }

  /** The TaskManagers that ran subtasks of a job. */
  static Set<String> ranOn(String jobId) throws Exception {
    Set<String> on = new TreeSet<>();
    for (JsonNode vertex : rest("/jobs/" + jobId).path("vertices")) {
      rest("/jobs/" + jobId + "/vertices/" + vertex.path("id").asText() + "/taskmanagers")
          .path("taskmanagers").forEach(tm -> on.add(tm.path("taskmanager-id").asText()));
    }
    return on;
  }

  /** Polls {@code condition} every 200 ms until it holds; fails with {@code what} at the deadline. */
  static void await(String what, Duration limit, BooleanSupplier condition) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
      LockSupport.parkNanos(200_000_000L);
    }
  }

  /** A command's exit code and output, run in this JVM as {@code java -jar logbench.jar} would. */
  record Run(int code, String out, String err) {
    String all() {
      return "stdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  static Run logbench(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /**
   * A run file: {@code minutes} of the quickstart hour's start at {@code speedup}, to the in-JVM
   * OpenSearch (an index of its own) and files, both in {@code runDir}.
   */
  static Path runFile(String name, Path runDir, int minutes, int speedup, int parallelism, boolean opensearch)
      throws IOException {
    Path file = dir.resolve(name + ".yaml");
    String backends = (opensearch ? """
          - kind: opensearch
            name: opensearch
            url: %s
            index: %s
            timeout: 120s
        """.formatted(OpenSearchTestServer.get().url(), name) : "") + """
          - kind: files
            dir: %s
        """.formatted(runDir.resolve("logdir"));
    Files.writeString(file, """
        name: %s
        dataset:
          kind: nginx-month
          mode: python-compatible
          seed: 8
          from: "2021-05-01T00:00:00-03:00"
          until: "2021-05-01T00:%02d:00-03:00"
        schedule:
          kind: replay
          speedup: %d
        timestamps: original
        batch:
          lines: 100
        window: 1m
        parallelism: %d
        run:
          dir: %s
          checkpoint_interval: 2s
        backends:
        %s""".formatted(name, minutes, speedup, parallelism, runDir, backends.stripTrailing().indent(2)));
    return file;
  }

  /** The verdicts.csv rows of a run directory: backend@window to status. */
  static Map<String, String> verdicts(Path runDir) throws IOException {
    List<String> lines = Files.readAllLines(runDir.resolve("verdicts.csv"));
    Map<String, String> out = new TreeMap<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",");
      out.put(f[0] + "@" + f[1], f[3]);
    }
    return out;
  }

  static String jobId(String output, String command) {
    Matcher m = Pattern.compile(command + ": job ([0-9a-f]{32}) submitted to " + Pattern.quote(url)).matcher(output);
    assertThat(m.find()).as("the job id in the output:%n%s", output).isTrue();
    return m.group(1);
  }

  @Test
  @Order(1)
  void aWrongRunFileOrUrlFailsInTheClientWithExitTwoAndNothingIsSubmitted() throws Exception {
    Map<String, String> before = jobsById();
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "dataset:\n  kind: nginx-month\nwindow: 7m\nbackends: [{kind: discard}]\n");
    Run wrongFile = logbench("generate", bad.toString(), "--cluster", url);
    assertThat(wrongFile.code()).as(wrongFile.all()).isEqualTo(2);
    assertThat(wrongFile.err()).contains("window: \"7m\" is not valid; expected a window size that divides a day");

    Run wrongUrl = logbench("verify", bad.toString(), "--cluster", "127.0.0.1:" + restPort);
    assertThat(wrongUrl.code()).as(wrongUrl.all()).isEqualTo(2);
    assertThat(wrongUrl.err()).contains("--cluster 127.0.0.1:" + restPort + " is not valid")
        .contains("expected the cluster's REST address, such as http://127.0.0.1:8081.");

    Run noJar = logbench("dataset", bad.toString(), "--out", dir.resolve("none").toString(), "--cluster", url,
        "--job-jar", dir.resolve("missing.jar").toString());
    assertThat(noJar.code()).as(noJar.all()).isEqualTo(2);
    assertThat(noJar.err()).contains("The job jar " + dir.resolve("missing.jar") + " does not exist");
    assertThat(jobsById()).isEqualTo(before);
  }

  @Test
  @Order(2)
  void generateAndVerifyOnTheClusterFindEveryWindowOk() throws Exception {
    Path runDir = dir.resolve("runs/ok");
    Path file = runFile("cluster-ok", runDir, WINDOWS, 30, 2, true);

    Run generate = logbench("generate", file.toString(), "--cluster", url, "--quiet");
    assertThat(generate.code()).as(generate.all()).isZero();
    String generateJob = jobId(generate.err(), "generate");
    // the summary a local run prints, from the job that ran on the cluster's TaskManagers
    assertThat(generate.out()).contains("opensearch").contains("files").contains("ledger (");
    List<String> summary = Files.readAllLines(runDir.resolve("summary.csv"));
    assertThat(summary).hasSize(3);
    for (String row : summary.subList(1, 3)) {
      String[] f = row.split(","); // backend,mode,expected_lines,lines,acked,...
      assertThat(Long.parseLong(f[4])).as("acked of %s", f[0]).isEqualTo(Long.parseLong(f[2])).isPositive();
    }
    assertThat(jobsById()).containsEntry(generateJob, "logbench generate cluster-ok:FINISHED");
    assertThat(ranOn(generateJob)).isNotEmpty().allMatch(tm -> tm.startsWith("tm-"));

    Run verify = logbench("verify", file.toString(), "--cluster", url, "--quiet");
    assertThat(verify.code()).as(verify.all()).isZero();
    assertThat(jobsById()).containsEntry(jobId(verify.err(), "verify"), "logbench verify cluster-ok:FINISHED");
    Map<String, String> verdicts = verdicts(runDir);
    assertThat(verdicts).hasSize(2 * WINDOWS);
    assertThat(verdicts.values()).containsOnly("OK");
  }

  @Test
  @Order(3)
  void sigtermToTheCommandLineCancelsItsJob() throws Exception {
    Path runDir = dir.resolve("runs/cancel");
    // two minutes of lines at real time: the job runs far longer than the test waits
    Path file = runFile("cluster-cancel", runDir, 2, 1, 1, false);
    Path log = dir.resolve("cancel.log");
    Process p = new ProcessBuilder("java", "-jar", ROOT.resolve("jobs/target/logbench.jar").toString(), "generate",
        file.toString(), "--cluster", url, "--quiet").redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      await("the job's submission", Duration.ofMinutes(2), () -> read(log).contains("submitted to"));
      String id = jobId(read(log), "generate");
      await("the job running", Duration.ofMinutes(1), () -> state(id).equals("RUNNING"));
      p.destroy(); // SIGTERM, as a terminal's Ctrl-C or kill would
      assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
      await("the job cancelled", Duration.ofSeconds(30), () -> state(id).equals("CANCELED"));
      assertThat(read(log)).contains("generate: stopped: cancelling job " + id + " on " + url)
          .contains("generate: job " + id + " cancelled");
    } finally {
      p.destroyForcibly();
    }
  }

  static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static String state(String jobId) {
    try {
      return rest("/jobs/" + jobId).path("state").asText();
    } catch (Exception e) {
      throw new IllegalStateException("Reading job " + jobId + " failed.", e);
    }
  }

  static long completedCheckpoints(String jobId) {
    try {
      return rest("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
    } catch (Exception e) {
      throw new IllegalStateException("Reading job " + jobId + "'s checkpoints failed.", e);
    }
  }

  @Test
  @Order(4)
  void aTaskManagerKilledMidRunIsReplacedTheJobRestoresAndVerifyFindsEveryLine() throws Exception {
    Path runDir = dir.resolve("runs/kill");
    // Two slots of the four: the job can restore on the slots the kill leaves. Restart attempts
    // still cancel collect sinks before they open (FLINK-39330); logbench's sinks close quietly.
    Path file = runFile("cluster-kill", runDir, WINDOWS, 10, 2, true);
    Set<String> before = jobsById().keySet();
    CompletableFuture<Run> generate = new CompletableFuture<>();
    Thread client = new Thread(() -> {
      try {
        generate.complete(logbench("generate", file.toString(), "--cluster", url, "--quiet"));
      } catch (Throwable t) {
        generate.completeExceptionally(t);
      }
    }, "generate-client");
    client.start();

    String[] id = new String[1];
    await("the generate job on the cluster", Duration.ofMinutes(2), () -> {
      try {
        Map<String, String> now = jobsById();
        now.keySet().removeAll(before);
        id[0] = now.keySet().stream().findFirst().orElse(null);
        return id[0] != null && now.get(id[0]).equals("logbench generate cluster-kill:RUNNING");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    String job = id[0];
    // mid-run: lines reached the files backend, and a checkpoint completed after that
    Path day = runDir.resolve("logdir/2021-05-01.log");
    await("the first lines written", Duration.ofMinutes(2), () -> day.toFile().length() > 0);
    long checkpointsThen = completedCheckpoints(job);
    await("a checkpoint with lines sent", Duration.ofMinutes(1), () -> completedCheckpoints(job) > checkpointsThen);
    Set<String> running = ranOn(job);
    assertThat(running).isNotEmpty().isSubsetOf("tm-1", "tm-2");
    assertThat(generate).isNotDone();

    String victim = running.iterator().next();
    long pid = Long.parseLong(Files.readString(Path.of(session(), "taskmanager-" + victim.substring(3) + ".pid"))
        .strip());
    ProcessHandle tm = ProcessHandle.of(pid).orElseThrow();
    assertThat(tm.destroyForcibly()).isTrue(); // SIGKILL: no goodbye to the JobManager
    tm.onExit().get(30, TimeUnit.SECONDS);
    assertThat(script("add-tm", session())).contains("TaskManager tm-3 registered");

    Run generated = generate.get(5, TimeUnit.MINUTES);
    assertThat(generated.code()).as(generated.all()).isZero();
    assertThat(state(job)).isEqualTo("FINISHED");
    // the job failed over when its TaskManager went, and ran again without it
    assertThat(rest("/jobs/" + job + "/exceptions").path("exceptionHistory").path("entries")).isNotEmpty();
    assertThat(ranOn(job)).isNotEmpty().doesNotContain(victim);
    // the survivor and the replacement are still up: no collect sink's close shut one down
    Set<String> survivors = new TreeSet<>(Set.of("tm-1", "tm-2", "tm-3"));
    survivors.remove(victim);
    assertThat(taskManagerIds()).isEqualTo(survivors);
    assertThat(generated.out()).contains("restored: backend");

    Run verify = logbench("verify", file.toString(), "--cluster", url, "--quiet");
    assertThat(verify.code()).as(verify.all()).isZero();
    Map<String, String> verdicts = verdicts(runDir);
    assertThat(verdicts).hasSize(2 * WINDOWS);
    // REPLAYED where a restore resent lines that were already there; never MISSING or DUPLICATE
    assertThat(verdicts.values()).allMatch(s -> s.equals("OK") || s.equals("REPLAYED"));
  }
}
