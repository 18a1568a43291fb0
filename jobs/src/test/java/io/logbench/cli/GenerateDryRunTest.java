package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.cli.PlanCommandTest.Run;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code generate --dry-run}: the plan and each backend's pre-flight check, nothing sent and no run
 * directory written. (A backend that is not ready at all, such as a Kafka topic that does not exist,
 * is checked against the in-JVM broker in {@code KafkaPreflightITCase}; here a
 * backend that cannot be asked, which the checks report as a warning.)
 */
class GenerateDryRunTest {

  @TempDir Path dir;

  /** A loopback port nothing listens on (bound, then closed). */
  static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void printsThePlanAndEveryBackendsCheckAndSendsNothing() throws Exception {
    Path runDir = dir.resolve("run");
    Path files = dir.resolve("files");
    Path config = dir.resolve("dry.yaml");
    Files.writeString(config, "dataset:\n  kind: nginx-month\n  from: \"2021-05-01T00:00:00-03:00\"\n"
        + "  until: \"2021-05-01T00:10:00-03:00\"\n"
        + "schedule:\n  kind: replay\n  speedup: 60\n"
        + "run:\n  dir: " + runDir + "\n"
        + "backends:\n"
        + "  - kind: files\n    dir: " + files + "\n"
        + "  - kind: elasticsearch\n    name: os\n    url: http://127.0.0.1:" + closedPort() + "\n    index: dry\n");
    Run r = PlanCommandTest.run("generate", config.toString(), "--dry-run");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("dry run of " + config + ": nothing is sent\n")
        .contains("  dataset:  nginx-month", "  schedule: replay at 60x the dataset's time",
            "run directory " + runDir)
        .containsPattern("(?m)^  files +files, at-least-once: ready$")
        .containsPattern("(?m)^  os +elasticsearch, at-least-once: ready, with 1 warning\\(s\\)$")
        .contains("      warning: Backend 'os' could not be asked whether it already holds lines")
        .endsWith("every backend is ready\n");
    assertThat(runDir).doesNotExist();
    assertThat(files).doesNotExist();
  }
}
