package io.logbench.sink.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.elasticsearch.internal.BulkEncoder;
import io.logbench.sink.internal.FixedStreams;
import io.logbench.sink.internal.TestBatches;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The exact bytes of {@code _bulk} bodies. */
class BulkEncoderTest {

  private static final long T0 = Instant.parse("2021-05-01T03:00:00Z").toEpochMilli();

  private static Map<String, String> labels(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private final FixedStreams streams =
      new FixedStreams(labels("job", "nginx", "status", "200"), labels("job", "api", "status", "500"));

  @Test
  void oneLineIsACreateActionWithTheSequenceIdAndItsDocument() {
    LineBatch batch = TestBatches.of(1, 42, T0, new int[] {1}, "GET / \"x\" \\ \t\u0001 é");
    String body = new String(new BulkEncoder("logs", streams, null).encode(batch, null), StandardCharsets.UTF_8);
    long nanos = LineBatch.distinctNanos(T0, 42);
    assertThat(nanos % 1_000_000_000L).isEqualTo(42 + 1);
    assertThat(body)
        .isEqualTo(
            "{\"create\":{\"_index\":\"logs\",\"_id\":\"42\"}}\n"
                + "{\"@timestamp\":\"2021-05-01T03:00:00.000000043Z\","
                + "\"message\":\"GET / \\\"x\\\" \\\\ \\t\\u0001 é\",\"seq\":42,"
                + "\"job\":\"api\",\"status\":\"500\"}\n");
  }

  @Test
  void everyLineDecodesBackToItsDocument() throws Exception {
    LineBatch batch = TestBatches.of(3, 1_000_000, T0 + 1_999, new int[] {0, 1}, "a", "b\nc", "d");
    byte[] bytes = new BulkEncoder("logbench", streams, null).encode(batch, null);
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
    assertThat(lines).hasSize(7);
    assertThat(lines[6]).isEmpty();
    ObjectMapper json = new ObjectMapper();
    for (int k = 0; k < 3; k++) {
      JsonNode action = json.readTree(lines[2 * k]).get("create");
      assertThat(action.get("_index").asText()).isEqualTo("logbench");
      assertThat(action.get("_id").asText()).isEqualTo(Long.toString(1_000_000 + k));
      JsonNode doc = json.readTree(lines[2 * k + 1]);
      assertThat(doc.get("message").asText()).isEqualTo(batch.lineAsString(k));
      assertThat(doc.get("seq").asLong()).isEqualTo(1_000_000 + k);
      assertThat(Instant.parse(doc.get("@timestamp").asText()))
          .isEqualTo(Instant.ofEpochSecond(0, batch.timestampNanos(k)));
      assertThat(doc.get("job").asText()).isEqualTo(streams.labels(k % 2).get("job"));
    }
  }

  @Test
  void aSubsetCarriesOnlyTheChosenLinesWithTheirOwnIds() {
    LineBatch batch = TestBatches.of(3, 10, T0, new int[] {0}, "a", "b", "c", "d");
    BitSet subset = new BitSet();
    subset.set(1);
    subset.set(3);
    String body = new String(new BulkEncoder("logbench", streams, null).encode(batch, subset), StandardCharsets.UTF_8);
    assertThat(body).contains("\"_id\":\"11\"", "\"_id\":\"13\"").doesNotContain("\"_id\":\"10\"", "\"_id\":\"12\"");
    assertThat(body.split("\n")).hasSize(4);
  }

  @Test
  void withARunIdTheIdIsPrefixedByItAndTheDocumentCarriesIt() {
    LineBatch batch = TestBatches.of(1, 42, T0, new int[] {0}, "x");
    String body = new String(new BulkEncoder("logs", streams, "quickstart-20261130-121314-3f2a").encode(batch, null),
        StandardCharsets.UTF_8);
    assertThat(body)
        .isEqualTo(
            "{\"create\":{\"_index\":\"logs\",\"_id\":\"quickstart-20261130-121314-3f2a-42\"}}\n"
                + "{\"@timestamp\":\"2021-05-01T03:00:00.000000043Z\",\"message\":\"x\",\"seq\":42,"
                + "\"logbench_run\":\"quickstart-20261130-121314-3f2a\",\"job\":\"nginx\",\"status\":\"200\"}\n");
  }

  @Test
  void aLabelNamedLikeTheRunFieldIsRefused() {
    assertThatThrownBy(() -> new BulkEncoder("logbench", new FixedStreams(labels("logbench_run", "x")), "r"))
        .hasMessage("The stream label logbench_run clashes with a document field of the same name.");
  }

  @Test
  void aLabelNamedLikeADocumentFieldIsRefused() {
    assertThatThrownBy(() -> new BulkEncoder("logbench", new FixedStreams(labels("message", "x")), null))
        .hasMessage("The stream label message clashes with a document field of the same name.");
  }
}
