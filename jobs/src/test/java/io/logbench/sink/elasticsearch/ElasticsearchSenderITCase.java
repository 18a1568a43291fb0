package io.logbench.sink.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult.Kind;
import io.logbench.sink.SendResult;
import io.logbench.sink.Specs;
import io.logbench.sink.elasticsearch.ElasticsearchBackend.Refresh;
import io.logbench.sink.internal.FixedStreams;
import io.logbench.sink.internal.TestBatches;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.BitSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The bulk sender against a real OpenSearch 2.19.6 node running in the test JVM. */
class ElasticsearchSenderITCase {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter NANOS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);
  private static final long MAY_2021 = Instant.parse("2021-05-01T03:00:00Z").toEpochMilli();

  private static OpenSearchTestServer server;

  private final FixedStreams streams =
      new FixedStreams(
          Map.of("job", "nginx", "path", "/a", "status", "200"),
          Map.of("job", "nginx", "path", "/b", "status", "404"));

  @BeforeAll
  static void start() {
    server = OpenSearchTestServer.get();
    System.out.println("OpenSearch test node ready after " + server.startMillis() + " ms at " + server.url());
  }

  private ElasticsearchSender sender(String index, Refresh refresh) {
    return ElasticsearchSender.builder()
        .url(server.url())
        .index(index)
        .streams(streams)
        .refresh(refresh)
        .build();
  }

  private static SendResult send(ElasticsearchSender sender, LineBatch batch) throws Exception {
    return sender.send(batch).get(120, TimeUnit.SECONDS);
  }

  private static JsonNode json(OpenSearchTestServer.Answer answer) throws Exception {
    return JSON.readTree(answer.body());
  }

  private static long count(String index) throws Exception {
    assertThat(server.request("POST", "/" + index + "/_refresh", null).status()).isEqualTo(200);
    OpenSearchTestServer.Answer a = server.request("GET", "/" + index + "/_count", null);
    assertThat(a.status()).isEqualTo(200);
    return json(a).get("count").asLong();
  }

  @Test
  void batchLandsWithTheExactDocuments() throws Exception {
    LineBatch batch =
        TestBatches.of(
            7, 1_000, MAY_2021, new int[] {0, 1},
            "GET /a HTTP/1.1 \"quoted\" 200",
            "back\\slash\ttab",
            "unicode é ✓",
            "{\"seq\":1003,\"msg\":\"json line\"}");
    try (ElasticsearchSender sender = sender("it-lands", Refresh.NONE)) {
      SendResult result = send(sender, batch);
      assertThat(result.kind()).as(result.detail()).isEqualTo(Kind.ACCEPTED);
      assertThat(result.accepted()).isEqualTo(4);
    }
    for (int k = 0; k < batch.count(); k++) {
      OpenSearchTestServer.Answer a = server.request("GET", "/it-lands/_doc/" + batch.seq(k), null);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      JsonNode source = json(a).get("_source");
      Map<String, String> labels = streams.labels(batch.stream(k));
      assertThat(source.get("message").asText()).isEqualTo(batch.lineAsString(k));
      assertThat(source.get("seq").asLong()).isEqualTo(1_000 + k);
      assertThat(source.get("@timestamp").asText())
          .isEqualTo(NANOS.format(Instant.ofEpochSecond(0, batch.timestampNanos(k))));
      assertThat(source.get("job").asText()).isEqualTo(labels.get("job"));
      assertThat(source.get("path").asText()).isEqualTo(labels.get("path"));
      assertThat(source.get("status").asText()).isEqualTo(labels.get("status"));
      assertThat(source.size()).isEqualTo(6);
    }
    assertThat(count("it-lands")).isEqualTo(4);
  }

  @Test
  void resentBatchIsAnswered409PerItemAndCountedAsAcceptedWithoutDuplicates() throws Exception {
    LineBatch batch = TestBatches.of(1, 50, MAY_2021, new int[] {0, 1, 1}, "a", "b", "c", "d", "e");
    try (ElasticsearchSender sender = sender("it-resend", Refresh.NONE)) {
      assertThat(send(sender, batch).kind()).isEqualTo(Kind.ACCEPTED);
      SendResult again = send(sender, batch);
      assertThat(again.kind()).isEqualTo(Kind.ACCEPTED);
      assertThat(again.accepted()).isEqualTo(5);
      assertThat(again.rejections()).isEmpty();
      assertThat(again.retry().isEmpty()).isTrue();
      assertThat(again.detail())
          .isEqualTo("5 already stored by an earlier attempt of this run (409 version_conflict_engine_exception)");
    }
    assertThat(count("it-resend")).isEqualTo(5);
  }

  @Test
  void mappingErrorRejectsOnlyTheBadItemsByReason() throws Exception {
    OpenSearchTestServer.Answer created =
        server.request(
            "PUT",
            "/it-strict",
            "{\"mappings\":{\"dynamic\":\"strict\",\"properties\":{"
                + "\"@timestamp\":{\"type\":\"date_nanos\"},\"message\":{\"type\":\"text\"},"
                + "\"seq\":{\"type\":\"long\"},\"job\":{\"type\":\"keyword\"},"
                + "\"path\":{\"type\":\"keyword\"},\"status\":{\"type\":\"integer\"}}}}");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    FixedStreams mixed =
        new FixedStreams(
            Map.of("job", "nginx", "path", "/a", "status", "200"),
            Map.of("job", "nginx", "path", "/b", "status", "not-a-number"));
    LineBatch batch = TestBatches.of(2, 200, MAY_2021, new int[] {0, 1}, "ok 0", "bad 1", "ok 2", "bad 3");
    SendResult result;
    try (ElasticsearchSender sender =
        ElasticsearchSender.builder().url(server.url()).index("it-strict").streams(mixed).build()) {
      result = send(sender, batch);
    }
    assertThat(result.kind()).isEqualTo(Kind.PARTIAL);
    assertThat(result.accepted()).isEqualTo(2);
    assertThat(result.retry().isEmpty()).isTrue();
    assertThat(result.rejections()).hasSize(1);
    SendResult.Rejection r = result.rejections().get(0);
    assertThat(r.reason()).isEqualTo("400 mapper_parsing_exception");
    assertThat(r.count()).isEqualTo(2);
    BitSet bad = new BitSet();
    bad.set(1);
    bad.set(3);
    assertThat(r.lines()).isEqualTo(bad);
    assertThat(result.detail()).startsWith("2 rejected 400 mapper_parsing_exception: failed to parse field [status]");
    assertThat(count("it-strict")).isEqualTo(2);
    assertThat(server.request("GET", "/it-strict/_doc/200", null).status()).isEqualTo(200);
    assertThat(server.request("GET", "/it-strict/_doc/201", null).status()).isEqualTo(404);
  }

  @Test
  void aBackendBlockOpensASenderThatWrites() throws Exception {
    ElasticsearchBackend backend =
        Specs.parse(ElasticsearchBackend.TYPE, 
            new io.logbench.config.ConfigNode(
                new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                    .readTree("kind: opensearch\nurl: " + server.url() + "\nindex: it-block\nrefresh: wait_for\n"),
                "backends[0]"));
    try (io.logbench.sink.BatchSender sender = backend.open(RunContext.of(streams))) {
      SendResult r = sender.send(TestBatches.of(4, 400, MAY_2021, new int[] {1}, "p", "q")).get(120, TimeUnit.SECONDS);
      assertThat(r).isEqualTo(SendResult.accepted(2, 200));
    }
    assertThat(json(server.request("GET", "/it-block/_doc/401", null)).at("/_source/path").asText()).isEqualTo("/b");
  }

  @Test
  void waitForRefreshMakesAckedLinesCountableWithoutAnExplicitRefresh() throws Exception {
    LineBatch batch = TestBatches.of(3, 300, MAY_2021, new int[] {0}, "x", "y", "z");
    try (ElasticsearchSender sender = sender("it-wait-for", Refresh.WAIT_FOR)) {
      assertThat(send(sender, batch).kind()).isEqualTo(Kind.ACCEPTED);
    }
    OpenSearchTestServer.Answer a = server.request("GET", "/it-wait-for/_count", null);
    assertThat(json(a).get("count").asLong()).isEqualTo(3);
  }
}
