package io.logbench.sink.victorialogs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The VictoriaLogsEmulator's behaviours a verifier relies on: form bodies, losses, counts and offsets. */
class VictoriaLogsEmulatorTest {

  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().retention(Duration.ofDays(36500));
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @AfterEach
  void stop() {
    vl.close();
  }

  private int insert(String contentType, String... times) throws Exception {
    StringBuilder b = new StringBuilder();
    for (String t : times) {
      b.append("{\"_time\":\"").append(t).append("\",\"_msg\":\"m\",\"app\":\"x\"}\n");
    }
    HttpRequest r = HttpRequest.newBuilder(URI.create(vl.url() + "/insert/jsonline?_stream_fields=app"))
        .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofString(b.toString())).build();
    return http.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private String get(String path, String query, String params) throws Exception {
    URI uri = URI.create(vl.url() + path + "?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + params);
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  @Test
  void aFormEncodedBodyIsAnswered200AndStoresNothing() throws Exception {
    assertThat(insert("application/x-www-form-urlencoded", "2021-05-01T03:00:00Z")).isEqualTo(200);
    assertThat(vl.rowsStored()).isZero();
    assertThat(vl.formRequestsIgnored()).isEqualTo(1);
  }

  @Test
  void acceptAndLoseDropsRowsAfterA200() throws Exception {
    vl.faults().loseFromNext(1);
    insert("application/stream+json", "2021-05-01T03:00:00Z", "2021-05-01T03:00:01Z");
    assertThat(vl.rowsStored()).isEqualTo(1);
    assertThat(vl.rowsLost()).isEqualTo(1);
  }

  @Test
  void hitsBucketsAreHalfOpenAndAlignedToTheEpochSoABoundaryRowCountsInTheLaterBucket() throws Exception {
    insert("application/stream+json", "2021-05-01T03:00:00Z", "2021-05-01T03:00:59.999999999Z",
        "2021-05-01T03:01:00Z", "2021-05-01T03:02:30Z");
    JsonNode hits = json.readTree(get("/select/logsql/hits", "{app=\"x\"}",
        "&start=2021-05-01T03:00:00Z&end=2021-05-01T03:02:59Z&step=1m")).get("hits").get(0);
    assertThat(hits.get("timestamps").toString())
        .isEqualTo("[\"2021-05-01T03:00:00Z\",\"2021-05-01T03:01:00Z\",\"2021-05-01T03:02:00Z\"]");
    assertThat(hits.get("values").toString()).isEqualTo("[2,1,1]");
    assertThat(hits.get("total").asLong()).isEqualTo(4);
  }

  private JsonNode dayHits(String offset) throws Exception {
    return json.readTree(get("/select/logsql/hits", "app:=x",
        "&start=2021-04-30T00:00:00Z&end=2021-05-02T23:59:59Z&step=1d&offset=" + offset)).get("hits").get(0);
  }

  @Test
  void byDefaultOffsetStartsBucketsAtStepMultiplesPlusTheOffsetAsVictoriaLogs1260Does() throws Exception {
    insert("application/stream+json", "2021-05-01T02:59:00Z", "2021-05-01T03:00:00Z", "2021-05-01T21:00:00Z");
    // 1.26.0: offset=3h gives a bucket at 03:00Z, offset=-3h one at 21:00Z the day before
    JsonNode plus = dayHits("3h");
    assertThat(plus.get("timestamps").toString()).isEqualTo("[\"2021-04-30T03:00:00Z\",\"2021-05-01T03:00:00Z\"]");
    assertThat(plus.get("values").toString()).isEqualTo("[1,2]");
    JsonNode minus = dayHits("-3h");
    assertThat(minus.get("timestamps").toString()).isEqualTo("[\"2021-04-30T21:00:00Z\",\"2021-05-01T21:00:00Z\"]");
    assertThat(minus.get("values").toString()).isEqualTo("[2,1]");
  }

  @Test
  void theDocumentedConventionStartsBucketsAtStepMultiplesMinusTheOffset() throws Exception {
    vl.offsetConvention(VictoriaLogsEmulator.OffsetConvention.MINUS);
    insert("application/stream+json", "2021-05-01T02:59:00Z", "2021-05-01T03:00:00Z", "2021-05-01T21:00:00Z");
    // the documentation: offset=-4h for days in New York; here -3h for days in Sao Paulo, at 03:00Z
    JsonNode minus = dayHits("-3h");
    assertThat(minus.get("timestamps").toString()).isEqualTo("[\"2021-04-30T03:00:00Z\",\"2021-05-01T03:00:00Z\"]");
    assertThat(minus.get("values").toString()).isEqualTo("[1,2]");
    JsonNode plus = dayHits("3h");
    assertThat(plus.get("timestamps").toString()).isEqualTo("[\"2021-04-30T21:00:00Z\",\"2021-05-01T21:00:00Z\"]");
    assertThat(plus.get("values").toString()).isEqualTo("[2,1]");
  }

  @Test
  void withoutOffsetBucketsAreEpochAlignedInBothConventions() throws Exception {
    insert("application/stream+json", "2021-05-01T02:59:59.999999999Z", "2021-05-01T03:00:00Z");
    for (VictoriaLogsEmulator.OffsetConvention c : VictoriaLogsEmulator.OffsetConvention.values()) {
      vl.offsetConvention(c);
      JsonNode hits = json.readTree(get("/select/logsql/hits", "app:=x",
          "&start=2021-05-01T00:00:00Z&end=2021-05-01T05:59:59Z&step=3h")).get("hits").get(0);
      assertThat(hits.get("timestamps").toString()).as(c.name())
          .isEqualTo("[\"2021-05-01T00:00:00Z\",\"2021-05-01T03:00:00Z\"]");
      assertThat(hits.get("values").toString()).as(c.name()).isEqualTo("[1,1]");
    }
  }

  @Test
  void deletedRowsAreNotCounted() throws Exception {
    insert("application/stream+json", "2021-05-01T03:00:00Z", "2021-05-01T03:00:01Z");
    assertThat(vl.deleteWhere(r -> r.nanos() == 1_619_838_001_000_000_000L)).isEqualTo(1);
    JsonNode hits = json.readTree(get("/select/logsql/hits", "app:=x",
        "&start=2021-05-01T03:00:00Z&end=2021-05-01T03:00:59Z&step=1m")).get("hits").get(0);
    assertThat(hits.get("values").toString()).isEqualTo("[1]");
  }

  @Test
  void statsByTimeCountsPerBucketAsJsonLines() throws Exception {
    insert("application/stream+json", "2021-05-01T03:00:00Z", "2021-05-01T03:00:10Z", "2021-05-01T03:05:00Z");
    String body = get("/select/logsql/query",
        "{app=\"x\"} _time:[2021-05-01T03:00:00Z, 2021-05-01T03:05:00Z) | stats by (_time:1m) count() n", "");
    assertThat(body).isEqualTo("{\"_time\":\"2021-05-01T03:00:00Z\",\"n\":\"2\"}\n");
  }

  @Test
  void tenantsAreSeparate() throws Exception {
    insert("application/stream+json", "2021-05-01T03:00:00Z");
    HttpRequest r = HttpRequest.newBuilder(URI.create(vl.url() + "/select/logsql/hits?query=*&step=1h"))
        .header("AccountID", "3").GET().build();
    assertThat(http.send(r, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("{\"hits\":[]}");
  }

  @Test
  void fieldsQueriesReturnTheNewestRowsOfAHalfOpenTimeRangeAsJsonLines() throws Exception {
    assertThat(insert("application/stream+json", "2021-05-01T03:00:00Z", "2021-05-01T03:00:30Z",
        "2021-05-01T03:01:00Z")).isEqualTo(200);
    String all = get("/select/logsql/query",
        "app:* _time:[2021-05-01T03:00:00Z, 2021-05-01T03:01:00Z) | fields _msg, _time", "");
    assertThat(all).isEqualTo("{\"_msg\":\"m\",\"_time\":\"2021-05-01T03:00:00Z\"}\n"
        + "{\"_msg\":\"m\",\"_time\":\"2021-05-01T03:00:30Z\"}\n");
    String newest = get("/select/logsql/query", "{app=\"x\"} | fields _time", "&limit=1");
    assertThat(newest).isEqualTo("{\"_time\":\"2021-05-01T03:01:00Z\"}\n");
    assertThat(get("/select/logsql/query", "other:* | fields _time", "")).isEmpty();
  }

  @Test
  void zeroFilledHitsAnswerEveryBucketOfTheRange() throws Exception {
    assertThat(insert("application/stream+json", "2021-05-01T03:01:10Z")).isEqualTo(200);
    vl.zeroFill(true);
    JsonNode hits = json.readTree(get("/select/logsql/hits", "*",
        "&start=2021-05-01T03:00:00Z&end=2021-05-01T03:02:59Z&step=1m")).get("hits").get(0);
    assertThat(hits.get("values").toString()).isEqualTo("[0,1,0]");
    assertThat(hits.get("timestamps").get(0).asText()).isEqualTo("2021-05-01T03:00:00Z");
  }
}
