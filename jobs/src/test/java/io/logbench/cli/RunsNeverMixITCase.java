package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.sink.kafka.KafkaTestBroker;
import io.logbench.sink.loki.LokiEmulator;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.testing.LoopbackMiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "runs never mix" issue's done-when: two runs of the same dataset over the same time range,
 * with different run ids, into one real OpenSearch index, one real Kafka topic, one VictoriaLogs
 * emulator and one Loki emulator (the run id as a label: see {@code LokiRunsTest} for why a
 * repeated run needs one), each by {@code generate}; the second run's {@code generate} warns that
 * the backends already hold lines of another run in its range, and each run's {@code verify} finds
 * exactly its own lines: every window OK.
 */
class RunsNeverMixITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(4);

  private static final String INDEX = "runs-never-mix";
  private static final String TOPIC = "runs-never-mix";

  @TempDir Path dir;
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().retention(Duration.ofDays(36_500));
  private final LokiEmulator loki = new LokiEmulator();

  @AfterEach
  void stop() {
    vl.close();
    loki.close();
  }


  private String runId(Path runDir) throws Exception {
    return new ObjectMapper().readTree(runDir.resolve("run.json").toFile()).get("runId").asText();
  }

  @Test
  void twoRunsIntoOneIndexTopicAndEmulatorEachVerifyOkOnTheirOwn() throws Exception {
    KafkaTestBroker.get().createTopic(TOPIC, 2);
    Path config = dir.resolve("runs.yaml");
    Files.writeString(config, String.join("\n",
        "name: runs-it",
        "dataset: {kind: app-json, lines: 12000, streams: 5, start: \"2021-05-01T03:00:00Z\", rate: 100}",
        "schedule: {kind: max}",
        "timestamps: original",
        "batch: {lines: 500}",
        "window: 1m",
        "zone: UTC",
        "run: {checkpoint_interval: 1s}",
        "backends:",
        "  - {kind: opensearch, name: opensearch, url: '" + OpenSearchTestServer.get().url() + "', index: " + INDEX + "}",
        "  - {kind: kafka, bootstrap: '" + KafkaTestBroker.get().bootstrap() + "', topic: " + TOPIC + "}",
        // long timeouts: a resend after a timeout on a loaded machine would store a batch twice
        "  - {kind: victorialogs, url: '" + vl.url() + "', retention: 36500d, timeout: 60s}",
        "  - {kind: loki, url: '" + loki.url() + "', run_id: label, timeout: 60s}",
        ""));
    Path first = dir.resolve("first");
    Path second = dir.resolve("second");

    Printed one = Printed.run("generate", config.toString(), "--run-dir", first.toString());
    assertThat(one.code()).as("%s%n%s", one.out(), one.err()).isZero();
    assertThat(one.err()).doesNotContain("already holds");
    assertThat(vl.rowsStored()).as("the first run, once: %s", one.out()).isEqualTo(12_000);
    Printed two = Printed.run("generate", config.toString(), "--run-dir", second.toString());
    assertThat(two.code()).as("%s%n%s", two.out(), two.err()).isZero();

    String idOne = runId(first);
    String idTwo = runId(second);
    assertThat(idOne).startsWith("runs-it-").isNotEqualTo(idTwo);
    for (String backend : List.of("opensearch", "kafka", "victorialogs", "loki")) {
      assertThat(two.err()).contains("generate: warning: Backend '" + backend + "' already holds 12,000 lines in"
          + " the run's time range from other runs; they are not counted as this run's (its lines carry run id "
          + idTwo + " and its counts filter by it).");
    }

    for (Path runDir : List.of(first, second)) {
      Printed verify = Printed.run("verify", config.toString(), "--run-dir", runDir.toString());
      assertThat(verify.code()).as("%s%n%s", verify.out(), verify.err()).isZero();
      List<String> verdicts = Files.readAllLines(runDir.resolve("verdicts.csv"));
      assertThat(verdicts).hasSize(1 + 4 * 2);
      for (String row : verdicts.subList(1, verdicts.size())) {
        String[] f = row.split(",");
        assertThat(f[3]).as(row).isEqualTo("OK");
        assertThat(f[6]).as("observed, the run's own lines only: %s", row).isEqualTo("6000");
      }
    }
    // the backends do hold both runs
    assertThat(vl.rowsStored()).isEqualTo(24_000);
    assertThat(loki.linesStored()).isEqualTo(24_000);
  }
}
