package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.query.QueryFiles;
import io.logbench.report.CsvTable;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.sink.kafka.KafkaTestBroker;
import io.logbench.sink.loki.LokiEmulator;
import io.logbench.sink.splunk.SplunkHecEmulator;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.testing.LoopbackMiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 11's query done-when: {@code generate} sends ten minutes of the quickstart's dataset
 * (seed 004's nginx-month, python-compatible, 2021-05-01 00:55 to 01:05 in Sao Paulo, across an
 * hour boundary: over 100,000 lines; the whole hour's 716,707 lines kept in three emulators and an
 * in-JVM OpenSearch would crowd the test JVM's heap) to a real OpenSearch, a real Kafka, files,
 * and the Loki, VictoriaLogs and Splunk emulators (not the servers); {@code query} then runs the
 * case study's searches on all six in their own languages and finds every cell equal to the
 * exact answer. Then one line is deleted from an emulator, and {@code query} names the backend,
 * the bucket, the key and value, the exact count and the one it got, and exits 1.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class QueryITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(4);

  private static final String TOPIC = "query-it";
  private static final String TOKEN = "11111111-2222-3333-4444-555555555555";
  private static final String PASSWORD = "s3arch-pw";

  @TempDir static Path dir;
  static Path config;
  static Path runDir;
  static final LokiEmulator LOKI = new LokiEmulator();
  static final VictoriaLogsEmulator VL = new VictoriaLogsEmulator().retention(Duration.ofDays(36_500));
  static final SplunkHecEmulator HEC = SplunkHecEmulator.start(TOKEN).searchCredentials("searcher", PASSWORD);


  @BeforeAll
  static void generate() throws Exception {
    KafkaTestBroker.get().createTopic(TOPIC, 2);
    Files.writeString(dir.resolve("hec.token"), TOKEN);
    Files.writeString(dir.resolve("search.password"), PASSWORD);
    runDir = dir.resolve("run");
    config = dir.resolve("query.yaml");
    Files.writeString(config, String.join("\n",
        "name: query-it",
        "dataset:",
        "  kind: nginx-month",
        "  mode: python-compatible",
        "  seed: 8",
        "  from: \"2021-05-01T00:55:00-03:00\"",
        "  until: \"2021-05-01T01:05:00-03:00\"",
        "schedule: {kind: max}",
        "timestamps: original",
        "batch: {lines: 500}",
        "window: 1m",
        "parallelism: 2",
        "run: {dir: '" + runDir + "'}",
        "backends:",
        "  - {kind: opensearch, name: opensearch, url: '" + OpenSearchTestServer.get().url() + "', index: query-it}",
        "  - {kind: kafka, bootstrap: '" + KafkaTestBroker.get().bootstrap() + "', topic: " + TOPIC + "}",
        "  - {kind: files, dir: '" + dir.resolve("logdir") + "'}",
        // long timeouts: a resend after a timeout on a loaded machine would store a batch twice
        "  - {kind: loki, url: '" + LOKI.url() + "', timeout: 60s}",
        "  - {kind: victorialogs, url: '" + VL.url() + "', retention: 36500d, timeout: 60s}",
        "  - kind: splunk",
        "    url: '" + HEC.url() + "'",
        "    token_file: '" + dir.resolve("hec.token") + "'",
        "    index: main",
        "    search_url: '" + HEC.url() + "'",
        "    search_user: searcher",
        "    search_password_file: '" + dir.resolve("search.password") + "'",
        "    timeout: 60s",
        ""));
    Printed g = Printed.run("generate", config.toString());
    assertThat(g.code()).as("%s%n%s", g.out(), g.err()).isZero();
    long lines = io.logbench.plan.RunPlan.of(io.logbench.plan.ConfigLoader.load(config)).lines();
    assertThat(lines).isGreaterThan(100_000);
    assertThat(LOKI.linesStored()).isEqualTo(lines);
    assertThat(VL.rowsStored()).isEqualTo(lines);
    assertThat(HEC.events()).hasSize((int) lines);
  }

  @AfterAll
  static void stop() {
    LOKI.close();
    VL.close();
    HEC.close();
  }

  @Test
  @Order(1)
  void everyBackendAnswersEverySearchWithTheExactCounts() throws Exception {
    Printed q = Printed.run("query", config.toString(), "--repeat", "2");
    assertThat(q.code()).as("%s%n%s", q.out(), q.err()).isZero();
    assertThat(q.out()).contains("verdict: every cell of every answer equals the exact answer.");
    CsvTable rows = CsvTable.read(runDir.resolve(QueryFiles.QUERIES));
    assertThat(rows.header()).containsExactlyElementsOf(QueryFiles.QUERY_COLUMNS);
    // 6 backends x (status, path) x (day 1h, run 1h, day 30s)
    assertThat(rows.rows()).hasSize(6 * 6);
    for (List<String> row : rows.rows()) {
      assertThat(rows.get(row, "status")).as("%s", row).isEqualTo("OK");
      assertThat(rows.get(row, "wrong_cells")).as("%s", row).isEqualTo("0");
      assertThat(rows.get(row, "runs")).as("%s", row).isEqualTo("2");
    }
    assertThat(rows.rows()).anyMatch(r -> r.subList(0, 12).equals(List.of("loki", "LogQL", "status-run-1h", "status",
        "run", "1h", "2021-05-01T00:00:00-03:00", "2021-05-01T02:00:00-03:00", "2", "12", "0", "OK")));
    assertThat(rows.rows()).anyMatch(r -> r.subList(0, 12).equals(List.of("opensearch", "Elasticsearch aggregation",
        "path-day-30s", "path", "day", "30s", "2021-05-01T00:55:00-03:00", "2021-05-01T01:05:00-03:00", "20", "6000",
        "0", "OK")));
    String runId = new ObjectMapper().readTree(runDir.resolve("run.json").toFile()).get("runId").asText();
    assertThat(rows.rows()).anyMatch(r -> rows.get(r, "query").equals(
        "sum by (path) (count_over_time({job=\"nginx\"} | logbench_run=\"" + runId + "\" [30s]))"));
    assertThat(rows.rows()).anyMatch(r -> rows.get(r, "query").equals("| tstats count where index=main logbench_run="
        + runId + " by _time, status span=3600s"));
    assertThat(Files.readAllLines(runDir.resolve(QueryFiles.MISMATCHES))).hasSize(1);
    assertThat(Files.readString(runDir.resolve("report.html"))).contains("status-day-30s");
  }

  @Test
  @Order(2)
  void aLineDroppedByAnEmulatorIsNamedByBucketAndKey() throws Exception {
    // the run's first line at or after 01:00:10 -03:00 in VictoriaLogs: its status and path
    long at = java.time.OffsetDateTime.parse("2021-05-01T01:00:10-03:00").toInstant().toEpochMilli() * 1_000_000L;
    VictoriaLogsEmulator.Row dropped = VL.rows().stream().filter(r -> r.nanos() >= at)
        .min(java.util.Comparator.comparingLong(VictoriaLogsEmulator.Row::nanos)).orElseThrow();
    assertThat(VL.deleteWhere(r -> r == dropped)).isEqualTo(1);
    String status = dropped.fields().get("status");
    String path = dropped.fields().get("path");

    Printed q = Printed.run("query", config.toString(), "--repeat", "1");
    assertThat(q.code()).as("%s%n%s", q.out(), q.err()).isEqualTo(1);
    CsvTable rows = CsvTable.read(runDir.resolve(QueryFiles.QUERIES));
    assertThat(rows.rows().stream().filter(r -> !rows.get(r, "status").equals("OK")))
        .allMatch(r -> rows.get(r, "backend").equals("victorialogs") && rows.get(r, "status").equals("WRONG"))
        .hasSize(6);
    CsvTable mismatches = CsvTable.read(runDir.resolve(QueryFiles.MISMATCHES));
    // one wrong cell per search: the dropped line's bucket and value, one line short
    assertThat(mismatches.rows()).hasSize(6);
    for (String search : List.of("status-day-1h", "status-run-1h", "status-day-30s", "path-day-1h", "path-run-1h",
        "path-day-30s")) {
      String key = search.startsWith("status") ? "status" : "path";
      assertThat(mismatches.rows()).as(search).anyMatch(m -> m.subList(0, 5).equals(List.of("victorialogs", search,
          "2021-05-01T01:00:00-03:00", key, key.equals("status") ? status : path))
          && Long.parseLong(mismatches.get(m, "got")) == Long.parseLong(mismatches.get(m, "expected")) - 1);
    }
    assertThat(q.err()).containsPattern("Backend victorialogs answered (\\d+) for status=" + status
        + " in the bucket starting 2021-05-01T01:00:00-03:00 of search status-day-30s, where the run has exactly"
        + " (\\d+)\\.");
    assertThat(q.err()).contains("for path=" + path + " in the bucket starting 2021-05-01T01:00:00-03:00 of search"
        + " path-run-1h");
  }
}
