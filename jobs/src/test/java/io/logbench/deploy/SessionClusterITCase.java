package io.logbench.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The submission path on a real Flink session cluster: deploy/flink-session/session.sh starts a
 * JobManager and TaskManagers as their own processes (loopback only) on the classpath it builds
 * itself from deploy/flink-session/pom.xml (Flink's jars only, as a fresh clone would), and the
 * packaged cluster jar (jobs/target/logbench-job.jar, Flink left out) goes in through Flink's own
 * CLI.
 */
class SessionClusterITCase {

  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  static final Path SCRIPT = ROOT.resolve("deploy/flink-session/session.sh");
  static final ObjectMapper JSON = new ObjectMapper();
  /** The seed 004 script's first three minutes (seed004/script-slices.csv). */
  static final String SCRIPT_SHA256 = "c422a1bb1f05ee4a73e5f9a1e4a8cbe060577d15f82ebf80849831b269bf8ee1";

  @TempDir static Path dir;
  static int restPort;
  static int rpcPort;

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  static Process script(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    // No FLINK_CLASSPATH: the script's own classpath (Maven over deploy/flink-session/pom.xml) is
    // what is under test, and it holds no logbench class, so the job jar must bring its own.
    pb.environment().remove("FLINK_CLASSPATH");
    pb.environment().put("REST_PORT", String.valueOf(restPort));
    pb.environment().put("RPC_PORT", String.valueOf(rpcPort));
    return pb.start();
  }

  static String runScript(int expectedExit, String... args) throws Exception {
    Process p = script(args);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("session.sh %s finished", args[0]).isTrue();
    assertThat(p.exitValue()).as("session.sh %s exit code; output:%n%s", args[0], out).isEqualTo(expectedExit);
    return out;
  }

  @BeforeAll
  static void startCluster() throws Exception {
    assertThat(ROOT.resolve("jobs/target/logbench-job.jar")).exists();
    restPort = freePort();
    rpcPort = freePort();
    String started = runScript(0, "start", session());
    assertThat(started).contains("web UI and REST API: http://127.0.0.1:" + restPort);
    assertThat(taskManagerIds()).containsExactly("tm-1");
    // The web UI is served (flink-runtime-web is on the script's classpath), not just the REST API.
    HttpResponse<String> ui = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + "/")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(ui.statusCode()).isEqualTo(200);
    assertThat(ui.body()).containsIgnoringCase("<html");
  }

  @AfterAll
  static void stopCluster() throws Exception {
    String stopped = runScript(0, "stop", session());
    runScript(3, "status", session());
    assertThat(stopped).contains("stopped");
  }

  static String session() {
    return dir.resolve("session").toString();
  }

  static JsonNode rest(String path) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  static Set<String> taskManagerIds() throws Exception {
    Set<String> ids = new TreeSet<>();
    rest("/taskmanagers").path("taskmanagers").forEach(tm -> ids.add(tm.path("id").asText()));
    return ids;
  }

  static String jobId(String clientOutput) {
    Matcher m = Pattern.compile("Job has been submitted with JobID ([0-9a-f]{32})").matcher(clientOutput);
    assertThat(m.find()).as("job id in the client's output:%n%s", clientOutput).isTrue();
    return m.group(1);
  }

  static String sha256(Path file) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }

  @Test
  void datasetJobSubmittedToTheSessionClusterWritesTheScriptsBytes() throws Exception {
    Path out = dir.resolve("logdir");
    String log = runScript(0, "run", session(), "dataset",
        ROOT.resolve("config/quickstart.yaml").toString(), "--out", out.toString(),
        "--until", "2021-05-01T00:03:00-03:00");
    assertThat(log).contains("Job has been submitted with JobID");
    Path file = out.resolve("2021-05-01.log");
    assertThat(Files.size(file)).isEqualTo(2_954_059L);
    assertThat(sha256(file)).isEqualTo(SCRIPT_SHA256);

    JsonNode job = rest("/jobs/" + jobId(log));
    assertThat(job.path("name").asText()).isEqualTo("logbench dataset");
    assertThat(job.path("state").asText()).isEqualTo("FINISHED");
  }

  @Test
  void aSecondTaskManagerAddedOnDemandRunsPartOfAParallelismFourJob() throws Exception {
    String added = runScript(0, "add-tm", session());
    assertThat(added).contains("TaskManager tm-2 registered");
    // add-tm returns once the JobManager lists the new TaskManager: no waiting needed here.
    assertThat(taskManagerIds()).containsExactly("tm-1", "tm-2");
    assertThat(rest("/overview").path("slots-total").asInt()).isEqualTo(4);
    String status = runScript(0, "status", session());
    assertThat(status)
        .contains("web UI and REST API: http://127.0.0.1:" + restPort)
        .contains("TaskManagers: 2 registered; slots: 4 total")
        .contains("tm-1: up").contains("tm-2: up");

    // Four parallel writers need four slots: two on each TaskManager.
    Path out = dir.resolve("logdir-p4");
    String log = runScript(0, "run", session(), "dataset", ROOT.resolve("config/quickstart.yaml").toString(),
        "--out", out.toString(), "--until", "2021-05-01T00:03:00-03:00", "--parallelism", "4");
    assertThat(sha256(out.resolve("2021-05-01.log"))).isEqualTo(SCRIPT_SHA256);
    String id = jobId(log);
    JsonNode job = rest("/jobs/" + id);
    assertThat(job.path("state").asText()).isEqualTo("FINISHED");
    Set<String> ranOn = new TreeSet<>();
    for (JsonNode vertex : job.path("vertices")) {
      rest("/jobs/" + id + "/vertices/" + vertex.path("id").asText() + "/taskmanagers")
          .path("taskmanagers").forEach(tm -> ranOn.add(tm.path("taskmanager-id").asText()));
    }
    assertThat(ranOn).containsExactly("tm-1", "tm-2");
  }

  @Test
  void aWrongRunFileFailsInTheClientWithItsMessage() throws Exception {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "dataset:\n  kind: nginx-month\nwindow: 7m\n");
    String log = runScript(2, "run", session(), "plan", bad.toString());
    assertThat(log).contains("window: \"7m\" is not valid; expected a window size that divides a day");
  }
}
