package io.logbench.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The manifest's JSON: what it says, that it reads back the same, and that a broken one is named. */
class ManifestTest {

  static Manifest manifest() {
    ObjectNode block = JsonNodeFactory.instance.objectNode().put("kind", "app-json").put("seed", 0)
        .put("lines", 1000).put("streams", 20).put("start", "2026-10-13T08:12:46Z").put("rate", 10000);
    return new Manifest("lines", block, 0, 1000, 1_791_879_166_000L, 1_791_879_166_099L, ZoneId.of("UTC"), 20,
        Manifest.currentValueSchema(), List.of(new Manifest.PartitionRange(0, 5, 512),
            new Manifest.PartitionRange(1, 0, 498)), Instant.parse("2026-11-30T12:00:00Z"));
  }

  @Test
  void roundTripsThroughJson() throws Exception {
    Manifest m = manifest();
    byte[] json = m.toJson();
    assertThat(Manifest.parse(json, "test")).isEqualTo(m);
    var tree = new ObjectMapper().readTree(json);
    assertThat(tree.get("format").asInt()).isEqualTo(1);
    assertThat(tree.get("first").asText()).isEqualTo("2026-10-13T08:12:46Z");
    assertThat(tree.get("last").asText()).isEqualTo("2026-10-13T08:12:46.099Z");
    assertThat(m.startOffsets()).containsExactly(Map.entry(new TopicPartition("lines", 0), 5L),
        Map.entry(new TopicPartition("lines", 1), 0L));
    assertThat(m.endOffsets()).containsExactly(Map.entry(new TopicPartition("lines", 0), 512L),
        Map.entry(new TopicPartition("lines", 1), 498L));
    assertThat(Manifest.currentValueSchema()).matches("[0-9a-f]{16}");
  }

  @Test
  void aBrokenManifestIsNamedWithTheFieldAndWhatWasExpected() throws Exception {
    ObjectNode good = (ObjectNode) new ObjectMapper().readTree(manifest().toJson());
    fails(good.deepCopy().put("format", 2),
        "where: format: 2 is not valid; expected format 1, the one this logbench reads; publish the dataset again"
            + " with this logbench.");
    ObjectNode noLines = good.deepCopy();
    noLines.remove("lines");
    fails(noLines, "where: lines: missing; expected a number of lines, 0 or more.");
    ObjectNode badPartition = good.deepCopy();
    ((ObjectNode) badPartition.get("partitions").get(1)).put("end", -1);
    fails(badPartition, "where: partitions[1].end: -1 is not valid; expected an offset, not before start.");
    fails(good.deepCopy().put("extra", 1), "where: extra: unknown key; expected one of format, topic, dataset,"
        + " firstIndex, lines, firstMillis, lastMillis, first, last, zone, streams, valueSchema, partitions,"
        + " publishedAt.");
    assertThatThrownBy(() -> Manifest.parse("{".getBytes(StandardCharsets.UTF_8), "where"))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("where: not a logbench manifest (not JSON: ");
  }

  static void fails(ObjectNode json, String message) {
    assertThatThrownBy(() -> Manifest.parse(json.toString().getBytes(StandardCharsets.UTF_8), "where"))
        .isInstanceOf(ConfigException.class).hasMessage(message);
  }
}
