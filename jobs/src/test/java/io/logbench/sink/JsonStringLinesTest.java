package io.logbench.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.elasticsearch.internal.BulkEncoder;
import io.logbench.sink.internal.FixedStreams;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.internal.TestBatches;
import io.logbench.sink.loki.internal.LokiJsonEncoder;
import io.logbench.sink.splunk.internal.HecEncoder;
import io.logbench.sink.victorialogs.internal.JsonLineEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Every encoder that writes lines inside JSON strings writes the same body from a batch of raw
 * lines, which it escapes, and from the same lines made escaped, which it copies.
 */
class JsonStringLinesTest {

  private static final long T0 = Instant.parse("2021-05-01T03:00:00Z").toEpochMilli();
  private static final FixedStreams STREAMS =
      new FixedStreams(Map.of("container", "app-0"), Map.of("container", "app-1"));

  private static final LineBatch RAW = TestBatches.of(3, 900, T0, new int[] {0, 1},
      "{\"level\":\"info\",\"msg\":\"request handled path=/api status=200\",\"seq\":900}",
      "quote \" backslash \\ tab \t newline \n control \u0001 é ✓",
      "",
      "plain");
  private static final LineBatch ESCAPED = TestBatches.escaped(RAW);

  private static void sameBody(String encoder, Function<LineBatch, byte[]> encode) {
    assertThat(ESCAPED.jsonEscaped()).isTrue();
    String raw = new String(encode.apply(RAW), StandardCharsets.UTF_8);
    assertThat(raw).as(encoder).contains("quote \\\" backslash \\\\ tab \\t newline \\n control \\u0001 é ✓");
    assertThat(new String(encode.apply(ESCAPED), StandardCharsets.UTF_8)).as(encoder).isEqualTo(raw);
  }

  private static byte[] bytes(java.util.function.BiConsumer<LineBatch, JsonBytes> encode, LineBatch batch) {
    JsonBytes out = new JsonBytes(64);
    encode.accept(batch, out);
    return out.toByteArray();
  }

  @Test
  void victoriaLogsJsonLines() {
    JsonLineEncoder e = new JsonLineEncoder(STREAMS, "run-1");
    sameBody("VictoriaLogs", b -> bytes(e::encode, b));
  }

  @Test
  void lokiJsonPush() {
    LokiJsonEncoder e = new LokiJsonEncoder(List.of(Map.of("container", "app-0"), Map.of("container", "app-1")), null);
    sameBody("Loki", b -> bytes(e::encode, b));
    BitSet some = new BitSet();
    some.set(1);
    some.set(3);
    sameBody("Loki, some lines", b -> bytes((batch, out) -> e.encode(batch, some, out), b));
  }

  @Test
  void elasticsearchBulk() {
    BulkEncoder e = new BulkEncoder("logs", STREAMS, "run-1");
    sameBody("Elasticsearch", b -> e.encode(b, null));
  }

  @Test
  void splunkHecEvents() {
    HecEncoder e = new HecEncoder(STREAMS, null, null, "logbench", "main", null);
    sameBody("Splunk", e::encode);
  }

  private static BackendSpec spec(BackendType type, String yaml) throws Exception {
    return Specs.parse(type, new io.logbench.config.ConfigNode(
        new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
            .readTree(yaml), "backends[0]"));
  }

  @Test
  void theBackendsWhoseSendersWriteLinesInJsonStringsSaySo() throws Exception {
    assertThat(spec(io.logbench.sink.victorialogs.VictoriaLogsBackend.TYPE, "kind: victorialogs\nurl: http://h:9428\n")
        .jsonStringLines()).isTrue();
    assertThat(spec(io.logbench.sink.victorialogs.VictoriaLogsBackend.TYPE,
        "kind: victorialogs\nurl: http://h:9428\nformat: otlp\n").jsonStringLines()).isFalse();
    assertThat(spec(io.logbench.sink.loki.LokiBackend.TYPE, "kind: loki\nurl: http://h:3100\nformat: json\n")
        .jsonStringLines()).isTrue();
    assertThat(spec(io.logbench.sink.loki.LokiBackend.TYPE, "kind: loki\nurl: http://h:3100\n").jsonStringLines())
        .isFalse();
    assertThat(spec(io.logbench.sink.loki.LokiBackend.TYPE, "kind: loki\nurl: http://h:3100\nformat: otlp\n")
        .jsonStringLines()).isFalse();
    assertThat(spec(io.logbench.sink.elasticsearch.ElasticsearchBackend.TYPE,
        "kind: elasticsearch\nurl: http://h:9200\n").jsonStringLines()).isTrue();
    assertThat(spec(io.logbench.sink.splunk.SplunkBackend.TYPE,
        "kind: splunk\nurl: http://h:8088\ntoken_env: T\n").jsonStringLines()).isTrue();
    assertThat(spec(io.logbench.sink.kafka.KafkaBackend.TYPE, "kind: kafka\nbootstrap: 127.0.0.1:9092\n")
        .jsonStringLines()).isFalse();
  }

  @Test
  void appendLineCopiesAnEscapedLineAndEscapesARawOne() {
    for (int k = 0; k < RAW.count(); k++) {
      byte[] fromRaw = new JsonBytes(8).appendLine(RAW, k).toByteArray();
      byte[] fromEscaped = new JsonBytes(8).appendLine(ESCAPED, k).toByteArray();
      byte[] raw = RAW.rawLine(k);
      assertThat(fromEscaped).isEqualTo(fromRaw)
          .isEqualTo(new JsonBytes(8).appendEscaped(raw, 0, raw.length).toByteArray());
    }
  }
}
