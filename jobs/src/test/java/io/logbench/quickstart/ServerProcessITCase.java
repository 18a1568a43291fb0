package io.logbench.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Servers as child JVMs from the built servers/target/logbench-servers.jar: a real Kafka is ready
 * on a loopback port, answers, and stops on SIGTERM with its data deleted; one that cannot start
 * is reported with its log file and last lines.
 */
class ServerProcessITCase {

  @TempDir Path dir;

  static Path jar() {
    return ServersJar.find();
  }

  @Test
  void kafkaStartsOnLoopbackAnswersAndStopsOnSigterm() throws Exception {
    Path log = dir.resolve("servers/kafka.log");
    ServerProcess kafka = ServerProcess.start(jar(), "kafka", log, true, List.of("-Xmx512m"));
    try {
      String address = kafka.awaitReady(Duration.ofMinutes(3));
      assertThat(address).matches("127\\.0\\.0\\.1:\\d+");
      int port = Integer.parseInt(address.substring(address.indexOf(':') + 1));
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        assertThat(s.isConnected()).isTrue();
      }
      assertThat(kafka.address()).isEqualTo(address);
    } finally {
      assertThat(kafka.stop()).as("stopped on SIGTERM, not killed").isTrue();
    }
    assertThat(kafka.isAlive()).isFalse();
    String output = Files.readString(log);
    assertThat(output).contains("logbench-server ready kafka ").contains("logbench-server stopped kafka");
  }

  @Test
  void aServerThatCannotStartIsReportedWithItsLog() throws Exception {
    Path log = dir.resolve("servers/nosuch.log");
    ServerProcess p = ServerProcess.start(jar(), "nosuch", log, true, List.of());
    assertThatThrownBy(() -> p.awaitReady(Duration.ofMinutes(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("nosuch stopped (exit code 2) before it was ready; see " + log)
        .hasMessageContaining("logbench-server: unknown server 'nosuch'.");
  }
}
