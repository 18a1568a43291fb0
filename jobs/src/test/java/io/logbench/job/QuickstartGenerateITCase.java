package io.logbench.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.cli.Main;
import io.logbench.count.CountReader;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.RunContext;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.sink.files.FilesBackend;
import io.logbench.sink.kafka.KafkaTestBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fan-out issue's "done when": {@code generate config/quickstart.yaml} sends the quickstart
 * hour (716,707 lines) to a real OpenSearch, a real Kafka and files in parallel, and the ledger
 * matches what each of them holds, window by window.
 */
class QuickstartGenerateITCase {

  static final Path CONFIG = Path.of("..", "config", "quickstart.yaml");
  static final String[] PROPERTIES = {
    "OPENSEARCH_URL", "OPENSEARCH_INDEX", "KAFKA_BOOTSTRAP", "KAFKA_TOPIC", "KAFKA_LEDGER_TOPIC",
    "LOGBENCH_RUN_DIR"
  };

  @TempDir static Path runDir;

  @BeforeAll
  static void servers() {
    System.setProperty("OPENSEARCH_URL", OpenSearchTestServer.get().url());
    System.setProperty("OPENSEARCH_INDEX", "quickstart-it");
    System.setProperty("KAFKA_BOOTSTRAP", KafkaTestBroker.get().bootstrap());
    System.setProperty("KAFKA_TOPIC", "quickstart-it");
    System.setProperty("KAFKA_LEDGER_TOPIC", "quickstart-ledger-it");
    // the test broker does not create topics on demand, like many production clusters; and May
    // 2021 records would be deleted by the default 7-day time retention within minutes
    try (var admin = KafkaTestBroker.get().admin()) {
      admin.createTopics(List.of(
              new org.apache.kafka.clients.admin.NewTopic("quickstart-it", 2, (short) 1)
                  .configs(Map.of("retention.ms", "-1")),
              new org.apache.kafka.clients.admin.NewTopic("quickstart-ledger-it", 1, (short) 1),
              new org.apache.kafka.clients.admin.NewTopic("quickstart-verdicts-it", 1, (short) 1)))
          .all().get();
    } catch (Exception e) {
      throw new IllegalStateException("Creating the quickstart topic failed.", e);
    }
    System.setProperty("LOGBENCH_RUN_DIR", runDir.toString());
  }

  @AfterAll
  static void clear() {
    for (String p : PROPERTIES) {
      System.clearProperty(p);
    }
  }

  @Test
  void quickstartHourReachesOpenSearchKafkaAndFilesAndTheLedgerMatchesWhatTheyHold() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"generate", CONFIG.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as("exit code; stdout:%n%s%nstderr:%n%s", out, err).isZero();
    assertThat(runDir.resolve("run.json")).exists();

    RunConfig config = ConfigLoader.load(CONFIG);
    RunPlan plan = RunPlan.of(config);
    List<LedgerEntry> ledger = LedgerFiles.read(runDir);
    Map<String, List<LedgerEntry>> byBackend =
        ledger.stream().collect(Collectors.groupingBy(LedgerEntry::backend, TreeMap::new, Collectors.toList()));
    assertThat(byBackend.keySet()).containsExactly("files", "kafka", "opensearch");

    for (BackendConfig b : config.backends()) {
      List<LedgerEntry> rows = byBackend.get(b.name());
      assertThat(rows).as("windows of %s", b.name()).hasSize(60);
      long from = rows.get(0).windowStartMillis();
      long to = rows.get(rows.size() - 1).windowEndMillis();
      long window = config.window().toMillis();
      long[] observed;
      try (CountReader reader = b.spec() instanceof FilesBackend files
          ? files.openCounter(RunContext.of(plan.dataset(), plan.firstIndex()))
          : b.spec().openCounter(RunContext.of(plan.dataset().streams()))) {
        observed = countPatiently(reader, from, to, window);
      }
      long total = 0;
      for (int k = 0; k < rows.size(); k++) {
        LedgerEntry e = rows.get(k);
        assertThat(e.acked()).as("%s acked in window %d", b.name(), k).isEqualTo(e.expected());
        assertThat(e.sent()).isEqualTo(e.expected());
        assertThat(observed[k]).as("%s holds in window %d", b.name(), k).isEqualTo(e.acked());
        total += e.acked();
      }
      assertThat(total).isEqualTo(716_707L);
    }

    // the files backend wrote the seed script's bytes: the hour's size as the script's file has
    // it, and its first three minutes are the script's (seed004/script-slices.csv)
    byte[] day = Files.readAllBytes(runDir.resolve("logdir").resolve("2021-05-01.log"));
    assertThat(day.length).isEqualTo(57_117_576);
    byte[] firstThreeMinutes = java.util.Arrays.copyOf(day, 2_954_059);
    assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(firstThreeMinutes)))
        .isEqualTo("c422a1bb1f05ee4a73e5f9a1e4a8cbe060577d15f82ebf80849831b269bf8ee1");
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("opensearch").contains("kafka").contains("files");

    // the stored sizes generate reports are what the servers' files hold
    io.logbench.report.CsvTable ingest = io.logbench.report.CsvTable.read(runDir.resolve("ingest.csv"));
    Map<String, Double> stored = new TreeMap<>();
    ingest.rows().forEach(r -> stored.put(ingest.get(r, "backend"), ingest.number(r, "stored_bytes")));
    assertThat(stored.get("opensearch")).as("OpenSearch's stored bytes in ingest.csv").isPositive();
    // generate flushed the index and read its size once no merge ran and the node's cached store
    // size was younger than the last change (right after a load the files hold merged segments
    // beside the ones they replace, and _stats/store answers from a cache of up to 10 s: once 115 MB
    // for files of 62 MB); so the figure in ingest.csv is what the index files hold, read here once
    // two listings a second apart agree
    assertThat(ingest.get(ingest.rows().stream().filter(r -> ingest.get(r, "backend").equals("opensearch"))
        .findFirst().orElseThrow(), "notes")).as("the OpenSearch row's notes").doesNotContain("partial");
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(120).toNanos();
    long before;
    long after = OpenSearchTestServer.get().indexFileBytes("quickstart-it");
    do {
      before = after;
      Thread.sleep(1_000);
      after = OpenSearchTestServer.get().indexFileBytes("quickstart-it");
    } while (before != after && System.nanoTime() < deadline);
    assertThat(after).as("the index files stopped changing within 120 s").isEqualTo(before);
    assertThat(stored.get("opensearch")).as("OpenSearch's stored bytes in ingest.csv beside its index files")
        .isCloseTo((double) after, org.assertj.core.data.Percentage.withPercentage(5));
    assertThat(stored.get("kafka")).as("Kafka's log size beside its segment files")
        .isCloseTo((double) KafkaTestBroker.get().topicLogBytes("quickstart-it"),
            org.assertj.core.data.Percentage.withPercentage(1));
    assertThat(stored.get("files")).isEqualTo((double) Files.size(runDir.resolve("logdir").resolve("2021-05-01.log")));

    // the ledger's Kafka output: the newest record of each key equals the ledger.csv row, keyed
    // and stamped with the run's id (not its name, which every run of the file shares)
    String runId = new com.fasterxml.jackson.databind.ObjectMapper().readTree(runDir.resolve("run.json").toFile())
        .get("runId").asText();
    Map<String, io.logbench.schemas.LedgerEntry> latest = new TreeMap<>();
    for (var r : records("quickstart-ledger-it")) {
      latest.put(r.getKey(), decode(r.getValue(), io.logbench.schemas.LedgerEntry.class));
    }
    assertThat(latest).hasSize(ledger.size());
    for (LedgerEntry e : ledger) {
      io.logbench.schemas.LedgerEntry k = latest.get(runId + "/" + e.backend() + "/" + e.windowStartMillis());
      assertThat(k).as("ledger record of %s at %d", e.backend(), e.windowStartMillis()).isNotNull();
      assertThat(k.getRun()).isEqualTo(runId);
      assertThat(List.of(k.getExpected(), k.getSent(), k.getAcked()))
          .containsExactly(e.expected(), e.sent(), e.acked());
    }

    // and the verifier finds every window of every backend OK
    ByteArrayOutputStream vout = new ByteArrayOutputStream();
    int verify = Main.run(new String[] {"verify", CONFIG.toString(),
            "--verdicts-kafka", KafkaTestBroker.get().bootstrap(), "--verdicts-topic", "quickstart-verdicts-it"},
        new PrintStream(vout, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(verify).as("verify exit code; stdout:%n%s%nstderr:%n%s", vout, err).isZero();
    List<String> verdicts = Files.readAllLines(runDir.resolve("verdicts.csv"));
    assertThat(verdicts).hasSize(1 + 3 * 60);
    assertThat(verdicts.subList(1, verdicts.size())).allMatch(l -> l.split(",")[3].equals("OK"));

    // the verdicts also went to Kafka as Avro records: one OK verdict per backend and window
    Map<String, io.logbench.schemas.Verdict> byWindow = new TreeMap<>();
    for (var r : records("quickstart-verdicts-it")) {
      io.logbench.schemas.Verdict v = decode(r.getValue(), io.logbench.schemas.Verdict.class);
      byWindow.put(v.getBackend() + "@" + v.getWindowStartMillis(), v);
    }
    assertThat(byWindow).hasSize(3 * 60);
    assertThat(byWindow.values()).allMatch(v -> v.getStatus() == io.logbench.schemas.VerdictStatus.OK
        && v.getObserved() == v.getExpected());
  }

  /** Every record of a one-partition topic, from the beginning to its end offset now. */
  static List<Map.Entry<String, byte[]>> records(String topic) {
    java.util.Properties props = new java.util.Properties();
    props.put("bootstrap.servers", KafkaTestBroker.get().bootstrap());
    props.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
    props.put("value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
    List<Map.Entry<String, byte[]>> out = new java.util.ArrayList<>();
    try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]>(props)) {
      var partition = new org.apache.kafka.common.TopicPartition(topic, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long end = consumer.endOffsets(List.of(partition)).get(partition);
      while (consumer.position(partition) < end) {
        for (var r : consumer.poll(java.time.Duration.ofSeconds(1))) {
          out.add(Map.entry(r.key() == null ? "" : r.key(), r.value()));
        }
      }
    }
    return out;
  }

  static <T> T decode(byte[] bytes, Class<T> type) {
    try {
      return new org.apache.avro.specific.SpecificDatumReader<>(type)
          .read(null, org.apache.avro.io.DecoderFactory.get().binaryDecoder(bytes, null));
    } catch (java.io.IOException e) {
      throw new IllegalStateException("Not an Avro " + type.getSimpleName() + " record.", e);
    }
  }

  /**
   * The counts, asking again while the backend does not answer in time: on a machine shared with
   * other builds, OpenSearch's refresh after indexing the hour can take longer than the reader's
   * query_timeout. A wrong answer fails at once; only timeouts are retried, for up to 5 minutes.
   */
  private static long[] countPatiently(CountReader reader, long from, long to, long window) throws Exception {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(5);
    while (true) {
      try {
        return reader.counts(from, to, window);
      } catch (java.io.IOException e) {
        if (!(e.getCause() instanceof java.net.http.HttpTimeoutException) || System.nanoTime() > deadline) {
          throw e;
        }
      }
    }
  }
}
