package io.logbench.sink.loki;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The LokiEmulator's own behaviours that a verifier relies on: dedup, losses and count queries. */
class LokiEmulatorTest {

  private static final long MINUTE = 60_000_000_000L;
  /** 2021-05-01T03:00:00Z in ns, a whole minute. */
  private static final long T0 = 1_619_838_000L * 1_000_000_000L;

  private final LokiEmulator loki = new LokiEmulator();
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @AfterEach
  void stop() {
    loki.close();
  }

  private int push(String container, long... nanos) throws Exception {
    StringBuilder values = new StringBuilder();
    for (long ns : nanos) {
      values.append(values.length() == 0 ? "" : ",").append("[\"").append(ns).append("\",\"line at ")
          .append(ns).append("\"]");
    }
    String body = "{\"streams\":[{\"stream\":{\"namespace\":\"loadtest\",\"container\":\"" + container
        + "\"},\"values\":[" + values + "]}]}";
    HttpRequest r = HttpRequest.newBuilder(URI.create(loki.url() + "/loki/api/v1/push"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    return http.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private HttpResponse<String> get(String path, String query, String params) throws Exception {
    String uri = loki.url() + path + "?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + params;
    return http.send(HttpRequest.newBuilder(URI.create(uri)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void identicalLinesAreDroppedWith204() throws Exception {
    assertThat(push("k6-0", T0 + 1, T0 + 2)).isEqualTo(204);
    assertThat(push("k6-0", T0 + 1, T0 + 2)).isEqualTo(204);
    assertThat(push("k6-1", T0 + 1)).isEqualTo(204);
    assertThat(loki.linesStored()).isEqualTo(3);
    assertThat(loki.duplicatesDropped()).isEqualTo(2);
    assertThat(loki.pushesReceived()).isEqualTo(3);
  }

  @Test
  void accceptAndLoseDropsLinesAfterA204() throws Exception {
    loki.faults().loseFromNext(2);
    assertThat(push("k6-0", T0 + 1, T0 + 2, T0 + 3)).isEqualTo(204);
    assertThat(loki.linesStored()).isEqualTo(1);
    assertThat(loki.linesLost()).isEqualTo(2);
  }

  @Test
  void rangeCountsCoverTheHalfOpenWindowEndingAtEachStepSoABoundaryLineCountsBefore() throws Exception {
    // One line exactly on T0 + 1m: a point at t counts (t - 1m, t], so it belongs to the point T0 + 1m.
    push("k6-0", T0 + 1, T0 + MINUTE - 1, T0 + MINUTE, T0 + MINUTE + 1, T0 + 2 * MINUTE + 5);
    push("k6-1", T0 + 7);
    HttpResponse<String> r = get("/loki/api/v1/query_range",
        "sum(count_over_time({namespace=\"loadtest\", container=\"k6-0\"}[1m]))",
        "&start=" + (T0 + MINUTE) + "&end=" + (T0 + 3 * MINUTE) + "&step=60");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode data = json.readTree(r.body()).get("data");
    assertThat(data.get("resultType").asText()).isEqualTo("matrix");
    JsonNode values = data.get("result").get(0).get("values");
    assertThat(values.toString())
        .isEqualTo("[[1619838060,\"3\"],[1619838120,\"1\"],[1619838180,\"1\"]]");
  }

  @Test
  void rangeStartIsAlignedDownToTheStep() throws Exception {
    push("k6-0", T0 + 5);
    String q = "sum(count_over_time({container=\"k6-0\"}[1m]))";
    String a = get("/loki/api/v1/query_range", q, "&start=" + (T0 + MINUTE) + "&end=" + (T0 + MINUTE) + "&step=1m").body();
    String b = get("/loki/api/v1/query_range", q, "&start=" + (T0 + MINUTE + 1) + "&end=" + (T0 + MINUTE + 1) + "&step=1m").body();
    assertThat(b).isEqualTo(a).contains("[1619838060,\"1\"]");
  }

  @Test
  void anInstantQueryOneNanosecondBeforeTheEndCountsExactlyTheWindow() throws Exception {
    push("k6-0", T0, T0 + 1, T0 + MINUTE - 1, T0 + MINUTE);
    HttpResponse<String> r = get("/loki/api/v1/query",
        "sum(count_over_time({container=\"k6-0\"}[1m]))", "&time=" + (T0 + MINUTE - 1));
    JsonNode data = json.readTree(r.body()).get("data");
    assertThat(data.get("resultType").asText()).isEqualTo("vector");
    assertThat(data.get("result").get(0).get("value").get(1).asText()).isEqualTo("3");
  }

  @Test
  void moreThan11000PointsIsRejectedWithLokisText() throws Exception {
    String q = "sum(count_over_time({container=\"k6-0\"}[1m]))";
    HttpResponse<String> over = get("/loki/api/v1/query_range", q, "&start=0&end=11001&step=1");
    assertThat(over.statusCode()).isEqualTo(400);
    assertThat(over.body()).isEqualTo(LokiEmulator.STEP_TOO_SMALL);
    assertThat(get("/loki/api/v1/query_range", q, "&start=0&end=11000&step=1").statusCode()).isEqualTo(200);
  }

  @Test
  void aRangeLongerThanMaxQueryLengthIsRejected() throws Exception {
    HttpResponse<String> r = get("/loki/api/v1/query_range", "sum(count_over_time({container=\"k6-0\"}[1h]))",
        "&start=0&end=" + (31L * 24 * 3600) + "&step=1h");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).startsWith("the query time range exceeds the limit");
  }

  @Test
  void tenantsAreSeparateWhenAuthIsOn() throws Exception {
    loki.authEnabled(true);
    assertThat(push("k6-0", T0 + 1)).isEqualTo(401);
    HttpRequest r = HttpRequest.newBuilder(URI.create(loki.url() + "/loki/api/v1/query?query="
            + URLEncoder.encode("sum(count_over_time({container=\"k6-0\"}[1m]))", StandardCharsets.UTF_8)
            + "&time=" + (T0 + 2)))
        .header("X-Scope-OrgID", "a").GET().build();
    assertThat(http.send(r, HttpResponse.BodyHandlers.ofString()).body()).contains("\"result\":[]");
  }

  @Test
  void logQueriesAnswerStreamsInTimeOrderOverAHalfOpenRangeWithinTheEntriesLimit() throws Exception {
    assertThat(push("k6-0", T0, T0 + 2, T0 + MINUTE)).isEqualTo(204);
    assertThat(push("k6-1", T0 + 1)).isEqualTo(204);
    HttpResponse<String> r = get("/loki/api/v1/query_range", "{namespace=~\"load.*\"}",
        "&direction=forward&limit=2&start=" + T0 + "&end=" + (T0 + MINUTE));
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode data = json.readTree(r.body()).get("data");
    assertThat(data.get("resultType").asText()).isEqualTo("streams");
    assertThat(data.get("result").toString()).isEqualTo("[{\"stream\":{\"container\":\"k6-0\","
        + "\"namespace\":\"loadtest\"},\"values\":[[\"" + T0 + "\",\"line at " + T0 + "\"]]},"
        + "{\"stream\":{\"container\":\"k6-1\",\"namespace\":\"loadtest\"},\"values\":[[\""
        + (T0 + 1) + "\",\"line at " + (T0 + 1) + "\"]]}]");
    HttpResponse<String> all = get("/loki/api/v1/query_range", "{container!=\"k6-1\", namespace=\"loadtest\"}",
        "&direction=forward&limit=100&start=" + T0 + "&end=" + (T0 + MINUTE));
    assertThat(json.readTree(all.body()).at("/data/result/0/values").size()).isEqualTo(2);
    HttpResponse<String> tooMany = get("/loki/api/v1/query_range", "{namespace=\"loadtest\"}",
        "&limit=5001&start=" + T0 + "&end=" + (T0 + MINUTE));
    assertThat(tooMany.statusCode()).isEqualTo(400);
    assertThat(tooMany.body()).isEqualTo(
        "max entries limit per query exceeded, limit > max_entries_limit_per_query (5001 > 5000)");
    HttpResponse<String> empty = get("/loki/api/v1/query_range", "{namespace=~\".*\"}", "");
    assertThat(empty.statusCode()).isEqualTo(400);
    assertThat(empty.body()).contains("queries require at least one regexp or equality matcher");
  }

  @Test
  void countOffsetShiftsTheRangeBack() throws Exception {
    assertThat(push("k6-0", T0 - 5, T0 + 5)).isEqualTo(204);
    long t = T0 + 60 * MINUTE;
    HttpResponse<String> r = get("/loki/api/v1/query",
        "sum(count_over_time({namespace=\"loadtest\"}[1h] offset 1h))", "&time=" + t);
    assertThat(json.readTree(r.body()).at("/data/result/0/value/1").asText()).isEqualTo("1");
  }
}
