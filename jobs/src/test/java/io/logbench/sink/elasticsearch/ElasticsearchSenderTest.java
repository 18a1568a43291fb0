package io.logbench.sink.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.SendResult;
import io.logbench.sink.SendResult.Kind;
import io.logbench.sink.elasticsearch.ElasticsearchBackend.Refresh;
import io.logbench.sink.internal.CannedHttpServer;
import io.logbench.sink.internal.FixedStreams;
import io.logbench.sink.internal.TestBatches;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.BitSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The bulk sender's requests and its classification of canned answers, against a fake server. */
class ElasticsearchSenderTest {

  private static final FixedStreams STREAMS = new FixedStreams(Map.of("job", "nginx"));

  private CannedHttpServer server;
  private ElasticsearchSender sender;
  private final LineBatch batch = TestBatches.of(9, 100, 1_620_000_000_000L, new int[] {0}, "l0", "l1", "l2", "l3", "l4");

  @BeforeEach
  void start() throws Exception {
    server = new CannedHttpServer();
    sender =
        ElasticsearchSender.builder()
            .url(server.url() + "/")
            .index("logbench")
            .streams(STREAMS)
            .authorization("Basic c2VjcmV0LXVzZXI6czNjcjN0")
            .requestTimeout(Duration.ofMillis(500))
            .build();
  }

  @AfterEach
  void stop() {
    sender.close();
    server.close();
  }

  private SendResult send() throws Exception {
    return sender.send(batch).get(30, TimeUnit.SECONDS);
  }

  private static BitSet bits(int... k) {
    BitSet b = new BitSet();
    for (int i : k) {
      b.set(i);
    }
    return b;
  }

  private static String item(int status, String errorType) {
    String error = errorType == null ? "" : ",\"error\":{\"type\":\"" + errorType + "\",\"reason\":\"why " + status + "\"}";
    return "{\"create\":{\"_index\":\"logbench\",\"_id\":\"x\",\"status\":" + status + error + "}}";
  }

  @Test
  void requestIsANdjsonPostToBulkWithTheAuthorization() throws Exception {
    server.answer(200, "{\"took\":1,\"errors\":false,\"items\":[" + String.join(",", item(201, null), item(201, null), item(201, null), item(201, null), item(201, null)) + "]}");
    SendResult r = send();
    assertThat(r).isEqualTo(SendResult.accepted(5, 200));
    CannedHttpServer.Request req = server.requests().get(0);
    assertThat(req.method()).isEqualTo("POST");
    assertThat(req.uri()).isEqualTo("/_bulk");
    assertThat(req.header("Content-Type")).isEqualTo("application/x-ndjson");
    assertThat(req.header("Authorization")).isEqualTo("Basic c2VjcmV0LXVzZXI6czNjcjN0");
    assertThat(req.bodyText().split("\n")).hasSize(10);
    assertThat(sender.toString()).doesNotContain("c2VjcmV0");
  }

  @Test
  void waitForRefreshIsAskedInTheQuery() throws Exception {
    try (ElasticsearchSender s =
        ElasticsearchSender.builder().url(server.url()).streams(STREAMS).refresh(Refresh.WAIT_FOR).build()) {
      server.answer(200, "{\"errors\":false,\"items\":[{},{}]}");
      s.send(TestBatches.of(1, 1, 0, new int[] {0}, "a", "b")).get(30, TimeUnit.SECONDS);
    }
    assertThat(server.requests().get(0).uri()).isEqualTo("/_bulk?refresh=wait_for");
  }

  @Test
  void mixedItemsAreSortedIntoAcceptedRetryAndRejectedByReason() throws Exception {
    server.answer(200, "{\"took\":3,\"errors\":true,\"items\":["
        + String.join(",", item(201, null), item(409, "version_conflict_engine_exception"),
            item(429, "es_rejected_execution_exception"), item(503, "unavailable_shards_exception"),
            item(400, "mapper_parsing_exception")) + "]}");
    SendResult r = send();
    assertThat(r.kind()).isEqualTo(Kind.PARTIAL);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.accepted()).isEqualTo(2);
    assertThat(r.retry()).isEqualTo(bits(2, 3));
    assertThat(r.rejections()).containsExactly(new SendResult.Rejection("400 mapper_parsing_exception", 1, bits(4)));
    assertThat(r.detail()).isEqualTo(
        "1 rejected 400 mapper_parsing_exception: why 400; 2 to retry (429/5xx items); "
            + "1 already stored by an earlier attempt of this run (409 version_conflict_engine_exception)");
  }

  @Test
  void onlyRetryableItemsMakeTheBatchRetryableForThoseLines() throws Exception {
    server.answer(200, "{\"errors\":true,\"items\":[" + String.join(",", item(429, "x"), item(429, "x"), item(429, "x"), item(503, "y"), item(500, "z")) + "]}");
    SendResult r = send();
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.accepted()).isZero();
    assertThat(r.retry()).isEqualTo(bits(0, 1, 2, 3, 4));
  }

  @Test
  void allItemsRejectedIsFatal() throws Exception {
    server.answer(200, "{\"errors\":true,\"items\":[" + String.join(",", item(400, "a"), item(400, "a"), item(404, "index_not_found_exception"), item(400, "a"), item(400, "a")) + "]}");
    SendResult r = send();
    assertThat(r.kind()).isEqualTo(Kind.FATAL);
    assertThat(r.rejections()).extracting(SendResult.Rejection::reason)
        .containsExactly("400 a", "404 index_not_found_exception");
    assertThat(r.rejectedCount()).isEqualTo(5);
  }

  @Test
  void retriedSubsetKeepsTheBatchsLineIndexes() throws Exception {
    server.answer(200, "{\"errors\":true,\"items\":[" + item(201, null) + "," + item(503, "y") + "]}");
    SendResult r = sender.send(batch, bits(1, 3)).get(30, TimeUnit.SECONDS);
    assertThat(r.kind()).isEqualTo(Kind.PARTIAL);
    assertThat(r.accepted()).isEqualTo(1);
    assertThat(r.retry()).isEqualTo(bits(3));
    assertThat(server.requests().get(0).bodyText()).contains("\"_id\":\"101\"", "\"_id\":\"103\"");
  }

  @Test
  void wholeRequest429IsRetryable() throws Exception {
    server.answer(429, "{\"error\":{\"type\":\"rejected_execution_exception\",\"reason\":\"busy\"},\"status\":429}");
    SendResult r = send();
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.status()).isEqualTo(429);
    assertThat(r.retry()).isEqualTo(bits(0, 1, 2, 3, 4));
    assertThat(r.detail()).startsWith("429 rejected_execution_exception: ");
  }

  @Test
  void wholeRequest503IsRetryable() throws Exception {
    server.answer(503, "upstream down");
    SendResult r = send();
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.detail()).isEqualTo("503: upstream down");
  }

  @Test
  void garbage200IsRetryableBecauseCreateWithIdsMakesResendingSafe() throws Exception {
    server.answer(200, "<html>proxy error</html>");
    SendResult r = send();
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.retry()).isEqualTo(bits(0, 1, 2, 3, 4));
    assertThat(r.detail()).isEqualTo("The bulk answer is not JSON: <html>proxy error</html>");
  }

  @Test
  void itemCountThatDoesNotMatchIsRetryable() throws Exception {
    server.answer(200, "{\"errors\":true,\"items\":[" + item(201, null) + "]}");
    SendResult r = send();
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.detail()).startsWith("The bulk answer does not list one item per line (5 sent): ");
  }

  @Test
  void unauthorizedIsFatalByReason() throws Exception {
    server.answer(401, "{\"error\":{\"type\":\"security_exception\",\"reason\":\"missing authentication credentials\"},\"status\":401}");
    SendResult r = send();
    assertThat(r.kind()).isEqualTo(Kind.FATAL);
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.rejections()).extracting(SendResult.Rejection::reason).containsExactly("401 security_exception");
    assertThat(r.rejectedCount()).isEqualTo(5);
    assertThat(r.detail()).startsWith("The bulk request was refused: 401 security_exception: ");
    assertThat(r.detail()).doesNotContain("c2VjcmV0");
  }

  @Test
  void noAnswerInTimeIsARetryableTimeout() throws Exception {
    server.hang();
    SendResult r = send();
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.status()).isZero();
    assertThat(r.detail()).isEqualTo("timeout: no answer to the bulk request in time");
  }

  @Test
  void refusedConnectionIsRetryableIo() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    try (ElasticsearchSender s = ElasticsearchSender.builder().url("http://127.0.0.1:" + port).streams(STREAMS).build()) {
      SendResult r = s.send(batch).get(30, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
      assertThat(r.detail()).startsWith("io: ConnectException");
      assertThat(r.retry().cardinality()).isEqualTo(5);
    }
  }
}
