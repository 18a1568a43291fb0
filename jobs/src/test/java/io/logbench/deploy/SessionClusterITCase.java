package io.logbench.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The submission path on a real Flink session cluster: deploy/flink-session/session.sh starts a
 * JobManager and a TaskManager as their own processes (loopback only), and the packaged cluster
 * jar (jobs/target/logbench-job.jar, Flink left out) goes in through Flink's own CLI.
 */
class SessionClusterITCase {

  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  static final Path SCRIPT = ROOT.resolve("deploy/flink-session/session.sh");

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
    // Failsafe hands the test classpath over in this property (the JVM's own is a manifest jar)
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    pb.environment().put("FLINK_CLASSPATH", String.join(File.pathSeparator, cp.split(File.pathSeparator)));
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
    runScript(0, "start", dir.resolve("session").toString());
  }

  @AfterAll
  static void stopCluster() throws Exception {
    runScript(0, "stop", dir.resolve("session").toString());
  }

  @Test
  void datasetJobSubmittedToTheSessionClusterWritesTheScriptsBytes() throws Exception {
    Path out = dir.resolve("logdir");
    String log = runScript(0, "run", dir.resolve("session").toString(), "dataset",
        ROOT.resolve("config/quickstart.yaml").toString(), "--out", out.toString(),
        "--until", "2021-05-01T00:03:00-03:00");
    assertThat(log).contains("Job has been submitted with JobID");
    Path file = out.resolve("2021-05-01.log");
    // the seed 004 script's first three minutes (seed004/script-slices.csv)
    assertThat(Files.size(file)).isEqualTo(2_954_059L);
    assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))))
        .isEqualTo("c422a1bb1f05ee4a73e5f9a1e4a8cbe060577d15f82ebf80849831b269bf8ee1");

    HttpResponse<String> jobs = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + "/jobs/overview")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(jobs.body()).contains("\"name\":\"logbench dataset\"").contains("\"state\":\"FINISHED\"");
  }

  @Test
  void aWrongRunFileFailsInTheClientWithItsMessage() throws Exception {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "dataset:\n  kind: nginx-month\nwindow: 7m\n");
    String log = runScript(2, "run", dir.resolve("session").toString(), "plan", bad.toString());
    assertThat(log).contains("window: \"7m\" is not valid; expected a window size that divides a day");
  }
}
