package io.logbench.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.config.ConfigException;
import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.publish.Manifest;
import io.logbench.sink.kafka.KafkaConnection;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A {@code dataset: {kind: kafka}} block reads as its topic's manifest's dataset block: mistakes
 * in the block, a topic without a manifest, and a manifest this logbench does not read are named
 * with the key, the value and what was expected. (The manifest comes from a stand-in here; the
 * ITCases read it from a real broker.)
 */
class KafkaDatasetConfigTest {

  static final String BLOCK = "dataset:\n  kind: kafka\n  bootstrap: 127.0.0.1:9092\n  topic: hour\n";

  /** The manifest publish writes for the quickstart hour (716,707 lines from line 0). */
  static Manifest quickstartHour() {
    ObjectNode block = JsonNodeFactory.instance.objectNode()
        .put("kind", "nginx-month").put("mode", "python-compatible").put("seed", 8)
        .put("from", "2021-05-01T00:00:00-03:00").put("until", "2021-05-01T01:00:00-03:00");
    NginxMonthDataset d = new NginxMonthDataset(8, NginxMonthDataset.Mode.PYTHON_COMPATIBLE);
    return new Manifest("hour", block, 0, 716_707, d.timestampMillis(0), d.timestampMillis(716_706),
        ZoneId.of("America/Sao_Paulo"), 1800, Manifest.currentValueSchema(),
        List.of(new Manifest.PartitionRange(0, 0, 400_000), new Manifest.PartitionRange(1, 0, 400_000)),
        Instant.parse("2026-11-30T12:00:00Z"));
  }

  static RunConfig parse(String yaml, Optional<Manifest> manifest) {
    List<String> asked = new ArrayList<>();
    RunConfig c = ConfigLoader.parse(yaml, "test", name -> null, (KafkaConnection kafka, String topic) -> {
      asked.add(kafka.bootstrap() + "/" + topic);
      return manifest;
    });
    assertThat(asked).containsExactly("127.0.0.1:9092/hour");
    return c;
  }

  static void fails(String yaml, Optional<Manifest> manifest, String message) {
    assertThatThrownBy(() -> ConfigLoader.parse(yaml, "test", name -> null, (kafka, topic) -> manifest))
        .isInstanceOf(ConfigException.class).hasMessage(message);
  }

  @Test
  void aRunReadFromATopicDeliversToNoExactlyOnceKafkaBackend() {
    fails(BLOCK + "schedule:\n  kind: replay\n  speedup: 60\n" + "backends:\n  - kind: files\n    dir: /tmp/x\n"
        + "  - kind: kafka\n    bootstrap: 127.0.0.1:9092\n    topic: lines\n    exactly_once: true\n",
        Optional.of(quickstartHour()),
        "backends[1].exactly_once: \"true\" is not valid; expected false when the dataset is read from Kafka (dataset"
            + " kind kafka): an exactly_once backend needs logbench's own source, which holds its end of input until"
            + " the last transaction commits.");
  }

  @Test
  void aPublishedTopicReadsAsItsManifestsDatasetBlock() {
    RunConfig c = parse(BLOCK + "schedule:\n  kind: replay\n  speedup: 60\n", Optional.of(quickstartHour()));
    assertThat(c.dataset().kind()).isEqualTo("nginx-month");
    assertThat(c.dataset().from()).isEqualTo(Instant.parse("2021-05-01T03:00:00Z"));
    assertThat(c.dataset().until()).isEqualTo(Instant.parse("2021-05-01T04:00:00Z"));
    assertThat(c.dataset().published().topic()).isEqualTo("hour");
    assertThat(c.dataset().published().kafka().bootstrap()).isEqualTo("127.0.0.1:9092");
    assertThat(c.zone().getId()).isEqualTo("America/Sao_Paulo");

    // counts and times are the source dataset's arithmetic, as for the run file it was published from
    RunPlan replay = RunPlan.of(c);
    RunPlan made = RunPlan.of(ConfigLoader.parse("dataset:\n  kind: nginx-month\n"
        + "  from: \"2021-05-01T00:00:00-03:00\"\n  until: \"2021-05-01T01:00:00-03:00\"\n"
        + "schedule:\n  kind: replay\n  speedup: 60\n", "made"));
    assertThat(replay.lines()).isEqualTo(716_707);
    assertThat(replay.published()).isNotNull();
    assertThat(replay.span(0)).isEqualTo(made.span(0));
    long[] span = made.span(0);
    assertThat(replay.expectedCounts(0).perWindow(span[0], span[1], 60_000))
        .hasSize(60).isEqualTo(made.expectedCounts(0).perWindow(span[0], span[1], 60_000));
    assertThat(replay.duration()).isEqualTo(made.duration());
  }

  @Test
  void mistakesInTheBlockAreNamedBeforeKafkaIsAsked() {
    Optional<Manifest> m = Optional.of(quickstartHour());
    fails("dataset:\n  kind: kafka\n  topic: hour\n", m,
        "dataset.bootstrap: missing; expected the Kafka bootstrap servers, such as 127.0.0.1:9092.");
    fails("dataset:\n  kind: kafka\n  bootstrap: 127.0.0.1:9092\n", m,
        "dataset.topic: missing; expected the topic logbench publish wrote the dataset to.");
    fails(BLOCK + "  seed: 8\n", m,
        "dataset.seed: unknown key; expected one of kind, bootstrap, topic, properties.");
    fails(BLOCK + "  properties:\n    sasl.jaas.config: inline-secret\n", m,
        "dataset.properties.sasl.jaas.config: holds a secret, so it must be given as {env: NAME} or {file: PATH},"
            + " not inline.");
    fails(BLOCK + "  properties:\n    acks: \"1\"\n", m,
        "dataset.properties.acks: \"1\" is not valid; expected a property logbench does not set itself (it sets"
            + " acks, bootstrap.servers, enable.idempotence, key.serializer, transactional.id, value.serializer).");
  }

  @Test
  void aTopicWithoutManifestIsNamed() {
    fails(BLOCK, Optional.empty(), "dataset.topic: \"hour\" is not valid; expected a topic written by logbench"
        + " publish; topic hour.manifest at 127.0.0.1:9092 holds no manifest for it.");
  }

  @Test
  void aManifestThisLogbenchCannotUseIsNamed() {
    Manifest good = quickstartHour();
    ObjectNode badSeed = good.dataset().deepCopy().put("seed", "eight");
    fails(BLOCK, Optional.of(with(good, badSeed)), "dataset.topic: the manifest of topic hour (in topic hour.manifest)"
        + " has a dataset block this logbench cannot read: dataset.seed: \"eight\" is not valid; expected an integer"
        + " seed.");
    ObjectNode kafka = good.dataset().deepCopy().put("kind", "kafka");
    fails(BLOCK, Optional.of(with(good, kafka)), "dataset.topic: the manifest of topic hour (in topic hour.manifest)"
        + " has a dataset block this logbench cannot read: dataset.kind: \"kafka\" is not valid; expected one of"
        + " nginx-month, app-json.");
    Manifest otherSchema = new Manifest("hour", good.dataset(), 0, good.lines(), good.firstMillis(), good.lastMillis(),
        good.zone(), 1800, "0011223344556677", good.partitions(), good.publishedAt());
    fails(BLOCK, Optional.of(otherSchema), "dataset.topic: the manifest of topic hour (in topic hour.manifest) says"
        + " its records follow LogRecord schema 0011223344556677; this logbench reads schema "
        + Manifest.currentValueSchema() + ". Publish the dataset again with this logbench.");

    // a manifest whose figures this logbench does not compute from its block is refused by the plan
    Manifest wrongCount = new Manifest("hour", good.dataset(), 0, 716_706, good.firstMillis(), good.lastMillis(),
        good.zone(), 1800, good.valueSchema(), good.partitions(), good.publishedAt());
    RunConfig c = parse(BLOCK, Optional.of(wrongCount));
    assertThatThrownBy(() -> RunPlan.of(c)).isInstanceOf(ConfigException.class)
        .hasMessage("dataset.topic: the manifest of topic hour says lines 716706, but its dataset block gives 716707"
            + " here: it was published by a logbench that makes this dataset differently. Publish it again with this"
            + " logbench (--overwrite).");
  }

  @Test
  void aRunNeverWritesToTheTopicItReplays() {
    fails(BLOCK + "backends:\n  - kind: kafka\n    bootstrap: 127.0.0.1:9092\n    topic: hour\n",
        Optional.of(quickstartHour()), "backends[0].topic: \"hour\" is not valid; expected another topic than the"
            + " dataset's (dataset.topic): a published dataset's topic is read, never written by a run.");
  }

  static Manifest with(Manifest m, ObjectNode block) {
    return new Manifest(m.topic(), block, m.firstIndex(), m.lines(), m.firstMillis(), m.lastMillis(), m.zone(),
        m.streams(), m.valueSchema(), m.partitions(), m.publishedAt());
  }
}
