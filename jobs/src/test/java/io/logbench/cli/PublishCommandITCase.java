package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunPlan;
import io.logbench.publish.Manifest;
import io.logbench.publish.ManifestStore;
import io.logbench.schemas.LogRecord;
import io.logbench.sink.kafka.KafkaConnection;
import io.logbench.sink.kafka.KafkaTestBroker;
import io.logbench.sink.kafka.KafkaTopics;
import io.logbench.sink.kafka.internal.StreamKeys;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code publish} against a real Kafka broker in the test JVM: a slice of seed 004's month goes to
 * a topic exactly once, each partition in sequence order, with its manifest; a second publish is
 * refused without {@code --overwrite} and replaces the first with it; a topic that would delete or
 * compact the lines is refused with what to do, and nothing is written to it.
 */
class PublishCommandITCase {

  /** Three minutes from 2021-05-02 00:00 (-03:00): lines 32,174,937 on, a slice the script also wrote. */
  static final String SLICE = "name: slice\ndataset:\n  kind: nginx-month\n"
      + "  from: \"2021-05-02T00:00:00-03:00\"\n  until: \"2021-05-02T00:03:00-03:00\"\n";

  @TempDir Path tmp;

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  Path slice() throws Exception {
    Path config = tmp.resolve("slice.yaml");
    Files.writeString(config, SLICE);
    return config;
  }

  static Run publish(Path config, String topic, String... more) {
    List<String> args = new ArrayList<>(List.of("publish", config.toString(), "--bootstrap",
        KafkaTestBroker.get().bootstrap(), "--topic", topic));
    args.addAll(List.of(more));
    return run(args.toArray(String[]::new));
  }

  static KafkaConnection kafka() {
    return KafkaConnection.of(KafkaTestBroker.get().bootstrap());
  }

  @Test
  void publishesTheSliceOnceInOrderWithItsManifest() throws Exception {
    Path config = slice();
    RunPlan plan = RunPlan.of(ConfigLoader.load(config));
    long first = plan.firstIndex();
    long lines = plan.datasetLines();
    assertThat(first).isEqualTo(32_174_937L);

    Run r = publish(config, "pub-slice", "--partitions", "3", "--parallelism", "2");
    assertThat(r.code()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
    assertThat(r.err()).contains("created topic pub-slice (3 partitions, retention.ms=-1")
        .contains("created topic pub-slice.manifest").contains("every line once, each partition in order");
    assertThat(r.out()).startsWith("published " + Format.count(lines) + " lines to Kafka topic pub-slice"
        + " (3 partitions, 2 writers)");

    Manifest m = ManifestStore.read(kafka(), "pub-slice").orElseThrow();
    assertThat(m.topic()).isEqualTo("pub-slice");
    assertThat(m.firstIndex()).isEqualTo(first);
    assertThat(m.lines()).isEqualTo(lines);
    assertThat(m.firstMillis()).isEqualTo(plan.dataset().timestampMillis(first));
    assertThat(m.lastMillis()).isEqualTo(plan.dataset().timestampMillis(first + lines - 1));
    assertThat(m.streams()).isEqualTo(1800);
    assertThat(m.zone().getId()).isEqualTo("America/Sao_Paulo");
    assertThat(m.dataset().toString()).isEqualTo("{\"kind\":\"nginx-month\",\"mode\":\"python-compatible\","
        + "\"seed\":8,\"from\":\"2021-05-02T00:00:00-03:00\",\"until\":\"2021-05-02T00:03:00-03:00\"}");
    assertThat(m.partitions()).extracting(Manifest.PartitionRange::partition).containsExactly(0, 1, 2);
    assertThat(m.partitions()).allMatch(p -> p.start() == 0);

    try (Admin admin = KafkaTestBroker.get().admin()) {
      ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "pub-slice");
      var configs = admin.describeConfigs(List.of(res)).all().get().get(res);
      assertThat(configs.get("retention.ms").value()).isEqualTo("-1");
      ConfigResource man = new ConfigResource(ConfigResource.Type.TOPIC, "pub-slice.manifest");
      assertThat(admin.describeConfigs(List.of(man)).all().get().get(man).get("cleanup.policy").value())
          .isEqualTo("compact");
    }

    // every line once, as the dataset makes it, keyed by stream, in its key's partition, in order
    StreamKeys keys = StreamKeys.of(plan.dataset().streams());
    Map<String, Integer> streamOfKey = new HashMap<>();
    for (int id = 0; id < plan.dataset().streams().size(); id++) {
      streamOfKey.put(new String(keys.key(id), StandardCharsets.UTF_8), id);
    }
    var expected = new io.logbench.dataset.LineBatch((int) lines, (int) lines * 100);
    var cursor = plan.dataset().cursor(first);
    for (long i = 0; i < lines; i++) {
      cursor.next(expected);
    }
    boolean[] seen = new boolean[(int) lines];
    Map<Integer, Long> lastSeq = new HashMap<>();
    List<ConsumerRecord<byte[], byte[]>> records = readCommitted(m);
    assertThat(records).hasSize((int) lines);
    for (ConsumerRecord<byte[], byte[]> rec : records) {
      LogRecord v = decode(rec.value());
      int k = (int) (v.getSeq() - first);
      assertThat(seen[k]).as("line %d twice", v.getSeq()).isFalse();
      seen[k] = true;
      assertThat(v.getLine().toString()).isEqualTo(expected.lineAsString(k));
      assertThat(v.getTimestampMillis()).isEqualTo(expected.timestampMillis(k)).isEqualTo(rec.timestamp());
      String key = new String(rec.key(), StandardCharsets.UTF_8);
      assertThat(streamOfKey.get(key)).isEqualTo(expected.stream(k));
      assertThat(rec.partition()).isEqualTo(KafkaTopics.partitionOf(rec.key(), 3));
      Long before = lastSeq.put(rec.partition(), v.getSeq());
      assertThat(before == null || before < v.getSeq()).as("partition %d in order", rec.partition()).isTrue();
    }
  }

  @Test
  void publishingAgainIsRefusedUnlessOverwriteWhichReplacesTheDataset() throws Exception {
    Path config = slice();
    assertThat(publish(config, "pub-again", "--partitions", "2").code()).isZero();
    Manifest before = ManifestStore.read(kafka(), "pub-again").orElseThrow();

    Run refused = publish(config, "pub-again");
    assertThat(refused.code()).isEqualTo(1);
    assertThat(refused.err()).contains("Kafka topic pub-again already holds a published dataset (nginx-month seed 8, "
        + before.lines() + " lines from ").contains("publish --overwrite replaces it, or choose another --topic.");
    assertThat(ManifestStore.read(kafka(), "pub-again").orElseThrow()).isEqualTo(before);
    assertThat(endOffsets("pub-again", 2)).isEqualTo(ends(before));

    Run again = publish(config, "pub-again", "--overwrite");
    assertThat(again.code()).as("stderr:%n%s", again.err()).isZero();
    assertThat(again.err()).contains("deleted the manifest of the earlier dataset")
        .contains("deleted the earlier records of topic pub-again");
    Manifest after = ManifestStore.read(kafka(), "pub-again").orElseThrow();
    assertThat(after.publishedAt()).isAfter(before.publishedAt());
    assertThat(after.lines()).isEqualTo(before.lines());
    // the new lines start where the old ones ended, and the old ones are gone
    for (int p = 0; p < 2; p++) {
      assertThat(after.partitions().get(p).start()).isEqualTo(before.partitions().get(p).end());
    }
    assertThat(readCommitted(after)).hasSize((int) after.lines());
    try (Admin admin = KafkaTestBroker.get().admin()) {
      var earliest = admin.listOffsets(Map.of(new TopicPartition("pub-again", 0),
          org.apache.kafka.clients.admin.OffsetSpec.earliest())).all().get();
      assertThat(earliest.get(new TopicPartition("pub-again", 0)).offset())
          .isEqualTo(before.partitions().get(0).end());
    }
  }

  @Test
  void aTopicThatWouldDeleteOrCompactTheLinesIsRefusedAndLeftEmpty() throws Exception {
    Path config = slice();
    try (Admin admin = KafkaTestBroker.get().admin()) {
      admin.createTopics(List.of(
          new NewTopic("pub-week", 2, (short) 1).configs(Map.of("retention.ms", "604800000")),
          new NewTopic("pub-compact", 2, (short) 1).configs(Map.of("cleanup.policy", "compact")))).all().get();
    }
    Run week = publish(config, "pub-week");
    assertThat(week.code()).isEqualTo(1);
    assertThat(week.err()).contains("Kafka topic pub-week keeps records for retention.ms=604800000, but the oldest"
            + " line is ")
        .contains(" days old (the records carry the lines' own times): the broker would delete them at its next"
            + " retention check. Set retention.ms=-1 (kafka-configs.sh --bootstrap-server "
            + KafkaTestBroker.get().bootstrap() + " --alter --entity-type topics --entity-name pub-week"
            + " --add-config retention.ms=-1), or publish to a new topic, which publish creates with retention.ms=-1.");
    Run compact = publish(config, "pub-compact");
    assertThat(compact.code()).isEqualTo(1);
    assertThat(compact.err()).contains("Kafka topic pub-compact has cleanup.policy=compact: compaction keeps one"
        + " record per key, and all lines of a stream share its key.");
    assertThat(endOffsets("pub-week", 2)).containsOnly(0L);
    assertThat(endOffsets("pub-compact", 2)).containsOnly(0L);
    assertThat(ManifestStore.read(kafka(), "pub-week")).isEmpty();
  }

  @Test
  void aReplayRunFileIsNotPublishedAgain() throws Exception {
    Path config = slice();
    assertThat(publish(config, "pub-source").code()).isZero();
    Path replay = tmp.resolve("replay.yaml");
    Files.writeString(replay, "dataset:\n  kind: kafka\n  bootstrap: " + KafkaTestBroker.get().bootstrap()
        + "\n  topic: pub-source\n");
    Run r = publish(replay, "pub-copy");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("logbench: publish: " + replay + " replays kafka topic pub-source at "
        + KafkaTestBroker.get().bootstrap() + "; publish the run file whose dataset block made it.\n");
  }

  static List<Long> ends(Manifest m) {
    return m.partitions().stream().map(Manifest.PartitionRange::end).toList();
  }

  static List<Long> endOffsets(String topic, int partitions) {
    Properties p = consumerProperties("read_uncommitted");
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        parts.add(new TopicPartition(topic, i));
      }
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      return parts.stream().map(end::get).toList();
    }
  }

  static Properties consumerProperties(String isolation) {
    Properties p = new Properties();
    p.put("bootstrap.servers", KafkaTestBroker.get().bootstrap());
    p.put("isolation.level", isolation);
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    return p;
  }

  /** The committed records of a manifest's offset ranges. */
  static List<ConsumerRecord<byte[], byte[]>> readCommitted(Manifest m) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties("read_committed"))) {
      Map<TopicPartition, Long> start = m.startOffsets();
      Map<TopicPartition, Long> end = m.endOffsets();
      c.assign(start.keySet());
      start.forEach(c::seek);
      while (start.keySet().stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime()).as("reading %s within 60 s", m.topic()).isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
            out.add(r);
          }
        }
      }
    }
    return out;
  }

  static LogRecord decode(byte[] value) throws Exception {
    return new SpecificDatumReader<>(LogRecord.class).read(null, DecoderFactory.get().binaryDecoder(value, null));
  }
}
