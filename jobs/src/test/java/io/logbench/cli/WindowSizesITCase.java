package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.count.LineIds;
import io.logbench.schemas.LogRecord;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.sink.kafka.KafkaTestBroker;
import io.logbench.sink.loki.LokiEmulator;
import io.logbench.sink.splunk.SplunkHecEmulator;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator.OffsetConvention;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.testing.LoopbackMiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 7's "done when": one {@code generate} run with 1-minute ledger windows in
 * America/Sao_Paulo (-03:00), four hours of app-json lines over two local days, to every backend at
 * once: the Loki and Splunk HEC emulators, two VictoriaLogs emulators (one per {@code offset}
 * convention), a real Kafka, a real OpenSearch and files. {@code verify --window} at 1m, 1h and 1d
 * finds every window OK; then lines are deleted from every backend after the fact, and the same
 * loss (its count, its window, its ids) shows at every size.
 */
class WindowSizesITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(4);

  private static final String TOKEN = "11111111-2222-3333-4444-555555555555";
  private static final String PASSWORD = "s3cret-pw";
  /** 2021-05-01T22:00:00-03:00, the first line; one a second for four hours. */
  private static final long START = OffsetDateTime.parse("2021-05-01T22:00:00-03:00").toInstant().toEpochMilli();
  private static final int LINES = 14_400;
  private static final String TOPIC = "windows-it";
  private static final String INDEX = "windows-it";
  /**
   * Per request: long, so that a slow answer on a busy machine is waited for rather than retried
   * (VictoriaLogs and Splunk keep both copies of a retried batch, which verify rightly reports as
   * DUPLICATE; this test is about windows, not retries).
   */
  private static final String TIMEOUT = "180s";
  private static final List<String> BACKENDS =
      List.of("loki", "vl-plus", "vl-minus", "splunk", "kafka", "opensearch", "files");
  /** Window size, and the windows of the four hours at that size in Sao Paulo. */
  private static final Map<String, Integer> SIZES = new TreeMap<>(Map.of("1m", 240, "1h", 4, "1d", 2));
  /**
   * Deleted after the run: the last three lines of May 1 (23:59:57 to 23:59:59) and the first two
   * of May 2, the first of them on the boundary itself (00:00:00.000, a new minute, hour and day).
   */
  private static final Set<Long> DELETED = Set.of(7_197L, 7_198L, 7_199L, 7_200L, 7_201L);

  @TempDir Path dir;
  private final LokiEmulator loki = new LokiEmulator();
  private final VictoriaLogsEmulator vlPlus =
      new VictoriaLogsEmulator().retention(Duration.ofDays(36_500)).offsetConvention(OffsetConvention.PLUS);
  private final VictoriaLogsEmulator vlMinus =
      new VictoriaLogsEmulator().retention(Duration.ofDays(36_500)).offsetConvention(OffsetConvention.MINUS);
  private final SplunkHecEmulator hec = SplunkHecEmulator.start(TOKEN).searchCredentials("counter", PASSWORD);

  @AfterEach
  void stop() {
    loki.close();
    vlPlus.close();
    vlMinus.close();
    hec.close();
  }

  private record Outcome(int code, String printed) {}

  private static Outcome main(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Outcome(code, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
  }

  private Path runFile() throws Exception {
    Files.writeString(dir.resolve("hec.token"), TOKEN);
    Files.writeString(dir.resolve("search.password"), PASSWORD);
    Path config = dir.resolve("run.yaml");
    Files.writeString(config, String.join("\n",
        "name: windows-it",
        "dataset: {kind: app-json, lines: " + LINES + ", streams: 5, start: \"2021-05-01T22:00:00-03:00\", rate: 1}",
        "schedule: {kind: max}",
        "timestamps: original",
        "window: 1m",
        "zone: America/Sao_Paulo",
        // one stripe, and one Loki request at a time: Loki refuses a stream's lines more than an
        // hour older than its newest, and a batch holds 20 minutes of lines
        "parallelism: 1",
        "batch: {lines: 1200}",
        "backends:",
        "  - {kind: loki, url: '" + loki.url() + "', in_flight: 1, timeout: " + TIMEOUT + "}",
        "  - {kind: victorialogs, name: vl-plus, url: '" + vlPlus.url() + "', retention: 36500d, timeout: "
            + TIMEOUT + "}",
        "  - {kind: victorialogs, name: vl-minus, url: '" + vlMinus.url() + "', retention: 36500d, timeout: "
            + TIMEOUT + "}",
        "  - kind: splunk",
        "    url: '" + hec.url() + "'",
        "    token_file: '" + dir.resolve("hec.token") + "'",
        "    index: logbench",
        "    search_url: '" + hec.url() + "'",
        "    search_user: counter",
        "    search_password_file: '" + dir.resolve("search.password") + "'",
        "    timeout: " + TIMEOUT,
        "  - {kind: kafka, name: kafka, bootstrap: '" + KafkaTestBroker.get().bootstrap() + "', topic: " + TOPIC
            + ", exactly_once: true, timeout: " + TIMEOUT + "}",
        "  - {kind: opensearch, name: opensearch, url: '" + OpenSearchTestServer.get().url() + "', index: "
            + INDEX + ", timeout: " + TIMEOUT + "}",
        "  - {kind: files, dir: '" + dir.resolve("logdir") + "'}",
        ""));
    return config;
  }

  /** A verdicts.csv row. */
  private record Row(String backend, long start, long end, String status, long expected, long acked, long observed) {
    static Row of(String line) {
      String[] f = line.split(",", -1);
      return new Row(f[0], OffsetDateTime.parse(f[1]).toInstant().toEpochMilli(),
          OffsetDateTime.parse(f[2]).toInstant().toEpochMilli(), f[3], Long.parseLong(f[4]), Long.parseLong(f[5]),
          Long.parseLong(f[6]));
    }
  }

  private static long millis(long seq) {
    return START + seq * 1000;
  }

  /** Verifies at {@code size}; returns the verdict rows by backend, and the drill-down ids by backend. */
  private Map<String, List<Row>> verify(Path config, Path runDir, String size, int expectCode,
      Map<String, Set<Long>> missingIds) throws Exception {
    Outcome v = main("verify", config.toString(), "--run-dir", runDir.toString(), "--window", size, "--drill", "50");
    assertThat(v.code()).as("verify --window %s:%n%s", size, v.printed()).isEqualTo(expectCode);
    assertThat(v.printed()).contains("verify: " + SIZES.get(size) + " window(s) of " + size
        + (size.equals("1m") ? " for " : " (sums of the ledger's 1m rows) for "));
    Map<String, List<Row>> rows = new TreeMap<>();
    List<String> lines = Files.readAllLines(runDir.resolve("verdicts.csv"));
    for (String line : lines.subList(1, lines.size())) {
      Row r = Row.of(line);
      rows.computeIfAbsent(r.backend(), k -> new ArrayList<>()).add(r);
    }
    List<String> missing = Files.readAllLines(runDir.resolve("missing.csv"));
    for (String line : missing.subList(1, missing.size())) {
      String[] f = line.split(",", -1);
      assertThat(f[2]).as("%s at %s: %s", size, f[0], line).isEqualTo("missing");
      missingIds.computeIfAbsent(f[0], k -> new TreeSet<>()).add(Long.parseLong(f[3]));
    }
    return rows;
  }

  @Test
  void oneRunVerifiedAtOneMinuteOneHourAndOneDayIsOkThenShowsTheSameLossAtEverySize() throws Exception {
    KafkaTestBroker.get().createTopic(TOPIC, 2);
    Path config = runFile();
    Path runDir = dir.resolve("run");
    Outcome generate = main("generate", config.toString(), "--run-dir", runDir.toString());
    assertThat(generate.code()).as(generate.printed()).isZero();

    for (String size : SIZES.keySet()) {
      Map<String, Set<Long>> ids = new TreeMap<>();
      Map<String, List<Row>> rows = verify(config, runDir, size, 0, ids);
      assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(BACKENDS);
      for (String b : BACKENDS) {
        assertThat(rows.get(b)).as("%s at %s", b, size).hasSize(SIZES.get(size))
            .allMatch(r -> r.status().equals("OK") && r.observed() == r.expected() && r.acked() == r.expected());
        assertThat(rows.get(b).stream().mapToLong(Row::observed).sum()).isEqualTo(LINES);
      }
      assertThat(ids).isEmpty();
    }
    // the VictoriaLogs emulators were asked without an offset at every size: day buckets of 3h
    assertThat(vlPlus.hitsRequests()).extracting(p -> p.get("step")).contains("1m", "1h", "3h")
        .doesNotContain("1d");
    assertThat(vlMinus.hitsRequests()).allMatch(p -> !p.containsKey("offset"));

    String runId = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(runDir.resolve("run.json").toFile()).get("runId").asText();
    Map<String, Set<Long>> deleted = deleteEverywhere(runId);
    for (String size : SIZES.keySet()) {
      Map<String, Set<Long>> ids = new TreeMap<>();
      Map<String, List<Row>> rows = verify(config, runDir, size, 1, ids);
      for (String b : BACKENDS) {
        long lost = 0;
        for (Row r : rows.get(b)) {
          long inWindow = deleted.get(b).stream().filter(s -> millis(s) >= r.start() && millis(s) < r.end()).count();
          assertThat(r.status()).as("%s at %s, window %d", b, size, r.start())
              .isEqualTo(inWindow > 0 ? "MISSING" : "OK");
          assertThat(r.acked() - r.observed()).as("%s at %s, window %d", b, size, r.start()).isEqualTo(inWindow);
          lost += r.acked() - r.observed();
        }
        assertThat(lost).as("%s at %s", b, size).isEqualTo(deleted.get(b).size());
        assertThat(ids.get(b)).as("the drill-down of %s at %s", b, size).isEqualTo(deleted.get(b));
      }
    }
  }

  @Test
  void aWindowThatIsNotAWholeMultipleOfTheLedgersExitsTwoNamingBoth() throws Exception {
    Path config = runFile();
    Path runDir = dir.resolve("run");
    Files.createDirectories(runDir);
    Files.writeString(runDir.resolve("run.json"), "{\"runStartMillis\": " + START
        + ", \"windowMillis\": 60000, \"zone\": \"America/Sao_Paulo\"}");
    io.logbench.ledger.LedgerFiles.writeCsv(runDir, List.of(), java.time.ZoneOffset.UTC);
    Outcome v = main("verify", config.toString(), "--run-dir", runDir.toString(), "--window", "90s");
    assertThat(v.code()).as(v.printed()).isEqualTo(2);
    assertThat(v.printed()).contains("window: 1m30s (--window) is not a whole multiple of the run's ledger window 1m"
        + " (from " + runDir.resolve("run.json") + "'s windowMillis)");
  }

  /** Deletes lines from every backend after the fact; returns which, by backend. */
  private Map<String, Set<Long>> deleteEverywhere(String runId) throws Exception {
    Map<String, Set<Long>> deleted = new TreeMap<>();
    assertThat(loki.deleteWhere(e -> DELETED.contains(LineIds.seqField(e.line())))).isEqualTo(DELETED.size());
    assertThat(vlPlus.deleteWhere(r -> DELETED.contains(LineIds.seqField(r.msg())))).isEqualTo(DELETED.size());
    assertThat(vlMinus.deleteWhere(r -> DELETED.contains(LineIds.seqField(r.msg())))).isEqualTo(DELETED.size());
    assertThat(hec.deleteWhere(e -> DELETED.contains(LineIds.seqField(e.event())))).isEqualTo(DELETED.size());
    for (long seq : DELETED) {
      // the test node has no reindex module (no _delete_by_query): delete by id, <run id>-<seq>
      OpenSearchTestServer.Answer a = OpenSearchTestServer.get()
          .request("DELETE", "/" + INDEX + "/_doc/" + runId + "-" + seq + "?refresh=true", null);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
    }
    int removed = 0;
    for (String day : List.of("2021-05-01.log", "2021-05-02.log")) {
      Path file = dir.resolve("logdir").resolve(day);
      List<String> kept = new ArrayList<>();
      for (String line : Files.readString(file, StandardCharsets.UTF_8).split("\n", -1)) {
        if (DELETED.contains(LineIds.seqField(line))) {
          removed++;
        } else {
          kept.add(line);
        }
      }
      Files.writeString(file, String.join("\n", kept), StandardCharsets.UTF_8);
    }
    assertThat(removed).isEqualTo(DELETED.size());
    for (String b : List.of("loki", "vl-plus", "vl-minus", "splunk", "opensearch", "files")) {
      deleted.put(b, new TreeSet<>(DELETED));
    }
    deleted.put("kafka", deleteFirstKafkaRecords(3));
    return deleted;
  }

  /**
   * Kafka keeps no way to delete one record: {@code deleteRecords} drops a partition's records
   * before an offset, so the first {@code n} records of partition 0 go; returns their seqs.
   */
  private static Set<Long> deleteFirstKafkaRecords(int n) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", KafkaTestBroker.get().bootstrap());
    p.put("isolation.level", "read_committed");
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    TopicPartition first = new TopicPartition(TOPIC, 0);
    Set<Long> seqs = new TreeSet<>();
    long before = -1;
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      c.assign(List.of(first));
      c.seekToBeginning(List.of(first));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (seqs.size() < n) {
        assertThat(System.nanoTime()).as("the first records of %s arrive", first).isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          if (seqs.size() < n) {
            LogRecord rec = new SpecificDatumReader<>(LogRecord.class)
                .read(null, DecoderFactory.get().binaryDecoder(r.value(), null));
            seqs.add(rec.getSeq());
            before = r.offset() + 1;
          }
        }
      }
    }
    try (var admin = KafkaTestBroker.get().admin()) {
      admin.deleteRecords(Map.of(first, RecordsToDelete.beforeOffset(before))).all().get();
    }
    return seqs;
  }
}
