package io.logbench.sink.splunk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.SendResult;
import io.logbench.sink.internal.FixedStreams;
import io.logbench.sink.internal.TestBatches;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The emulator's own protocol: token errors, health, and the tstats count search. */
class SplunkHecEmulatorTest {

  private static final String TOKEN = "emulator-token";
  private static final String ADMIN = "Basic " + Base64.getEncoder().encodeToString("admin:changeme".getBytes(StandardCharsets.UTF_8));
  private static final long T0 = Instant.parse("2021-05-01T03:00:00Z").toEpochMilli();

  private final SplunkHecEmulator hec = SplunkHecEmulator.start(TOKEN);
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final ObjectMapper json = new ObjectMapper();

  @AfterEach
  void stop() {
    hec.close();
  }

  private HttpResponse<String> post(String path, String authorization, String contentType, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(hec.url() + path)).POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    b.header("Content-Type", contentType);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> export(String search, String earliest, String latest) throws Exception {
    String form =
        "search=" + URLEncoder.encode(search, StandardCharsets.UTF_8)
            + (earliest == null ? "" : "&earliest_time=" + earliest)
            + (latest == null ? "" : "&latest_time=" + latest)
            + "&output_mode=json";
    return post("/services/search/jobs/export", ADMIN, "application/x-www-form-urlencoded", form);
  }

  @Test
  void tokenErrorsUseHecCodes() throws Exception {
    String event = "{\"event\":\"x\"}";
    HttpResponse<String> none = post("/services/collector/event", null, "application/json", event);
    HttpResponse<String> malformed = post("/services/collector/event", TOKEN, "application/json", event);
    HttpResponse<String> unknown = post("/services/collector/event", "Splunk nope", "application/json", event);
    HttpResponse<String> empty = post("/services/collector/event", "Splunk " + TOKEN, "application/json", "");
    HttpResponse<String> bad = post("/services/collector/event", "Splunk " + TOKEN, "application/json", event + "{\"event\":");
    HttpResponse<String> ok = post("/services/collector/event", "Splunk " + TOKEN, "application/json", event + " " + event);
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.body()).isEqualTo("{\"text\":\"Token is required\",\"code\":2}");
    assertThat(malformed.statusCode()).isEqualTo(401);
    assertThat(malformed.body()).isEqualTo("{\"text\":\"Invalid authorization\",\"code\":3}");
    assertThat(unknown.statusCode()).isEqualTo(403);
    assertThat(unknown.body()).isEqualTo("{\"text\":\"Invalid token\",\"code\":4}");
    assertThat(empty.body()).isEqualTo("{\"text\":\"No data\",\"code\":5}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).isEqualTo("{\"text\":\"Invalid data format\",\"code\":6,\"invalid-event-number\":1}");
    assertThat(ok.body()).isEqualTo("{\"text\":\"Success\",\"code\":0}");
    assertThat(hec.events()).hasSize(2);
  }

  @Test
  void ackEndpointNeedsAcknowledgementOnAndAChannel() throws Exception {
    HttpResponse<String> off = post("/services/collector/ack", "Splunk " + TOKEN, "application/json", "{\"acks\":[0]}");
    assertThat(off.statusCode()).isEqualTo(400);
    assertThat(off.body()).isEqualTo("{\"text\":\"ACK is disabled\",\"code\":14}");
    hec.ackEnabled(true);
    HttpResponse<String> noChannel = post("/services/collector/ack", "Splunk " + TOKEN, "application/json", "{\"acks\":[0]}");
    assertThat(noChannel.body()).isEqualTo("{\"text\":\"Data channel is missing\",\"code\":10}");
  }

  @Test
  void healthAnswersHealthyOrQueuesFull() throws Exception {
    HttpRequest get = HttpRequest.newBuilder(URI.create(hec.url() + "/services/collector/health")).GET().build();
    HttpResponse<String> healthy = http.send(get, HttpResponse.BodyHandlers.ofString());
    hec.unhealthy(true);
    HttpResponse<String> full = http.send(get, HttpResponse.BodyHandlers.ofString());
    assertThat(healthy.statusCode()).isEqualTo(200);
    assertThat(healthy.body()).isEqualTo("{\"text\":\"HEC is healthy\",\"code\":17}");
    assertThat(full.statusCode()).isEqualTo(503);
    assertThat(full.body()).isEqualTo("{\"text\":\"HEC is unhealthy, queues are full\",\"code\":18}");
  }

  @Test
  void tstatsCountsPerSpanOverHalfOpenTimeRanges() throws Exception {
    // 3 lines in 03:00, 2 in 03:01, 1 in 03:03, all in index logbench; 1 in index other.
    LineBatch a = TestBatches.of(1, 0, T0, new int[] {0}, "a", "b", "c");
    LineBatch b = TestBatches.of(2, 3, T0 + 60_000, new int[] {0}, "d", "e");
    LineBatch c = TestBatches.of(3, 5, T0 + 180_000, new int[] {0}, "f");
    FixedStreams streams = new FixedStreams(Map.of("job", "nginx"));
    try (SplunkSender s = SplunkSender.builder().url(hec.url()).token(TOKEN).streams(streams).index("logbench").build();
        SplunkSender other = SplunkSender.builder().url(hec.url()).token(TOKEN).streams(streams).index("other").build()) {
      for (LineBatch batch : List.of(a, b, c)) {
        assertThat(s.send(batch).get(30, TimeUnit.SECONDS).kind()).isEqualTo(SendResult.Kind.ACCEPTED);
      }
      assertThat(other.send(a).get(30, TimeUnit.SECONDS).kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    }
    long start = T0 / 1000;
    HttpResponse<String> all =
        export("| tstats count where index=logbench by _time span=1m", Long.toString(start), Long.toString(start + 600));
    assertThat(all.statusCode()).isEqualTo(200);
    assertThat(rows(all.body()))
        .containsExactly(
            "0 2021-05-01T03:00:00.000+00:00 3 false",
            "1 2021-05-01T03:01:00.000+00:00 2 false",
            "2 2021-05-01T03:03:00.000+00:00 1 true");
    HttpResponse<String> window =
        export("| tstats count where index=logbench by _time span=1m", Long.toString(start + 60), Long.toString(start + 180));
    assertThat(rows(window.body())).containsExactly("0 2021-05-01T03:01:00.000+00:00 2 true");
    HttpResponse<String> hour =
        export("| tstats count where index=logbench by _time span=1h", "2021-05-01T03:00:00Z", null);
    assertThat(rows(hour.body())).containsExactly("0 2021-05-01T03:00:00.000+00:00 6 true");
    HttpResponse<String> none =
        export("| tstats count where index=logbench by _time span=1m", Long.toString(start + 600), null);
    assertThat(none.statusCode()).isEqualTo(200);
    assertThat(none.body()).isEmpty();
  }

  @Test
  void indexedFieldTermsFilterTstatsAndSearchesAsSplunkDocumentsThem() throws Exception {
    FixedStreams streams = new FixedStreams(Map.of("job", "nginx"));
    LineBatch a = TestBatches.of(1, 0, T0, new int[] {0}, "a", "b", "c");
    LineBatch b = TestBatches.of(2, 10, T0, new int[] {0}, "d", "run-b e");
    try (SplunkSender runA = SplunkSender.builder().url(hec.url()).token(TOKEN).streams(streams).index("logbench")
            .runId("run-a").build();
        SplunkSender runB = SplunkSender.builder().url(hec.url()).token(TOKEN).streams(streams).index("logbench")
            .runId("run-b").build()) {
      assertThat(runA.send(a).get(30, TimeUnit.SECONDS).kind()).isEqualTo(SendResult.Kind.ACCEPTED);
      assertThat(runB.send(b).get(30, TimeUnit.SECONDS).kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    }
    assertThat(hec.events()).extracting(e -> e.fields().get("logbench_run"))
        .containsExactly("run-a", "run-a", "run-a", "run-b", "run-b");
    long start = T0 / 1000;
    String from = Long.toString(start);
    String to = Long.toString(start + 60);
    // tstats reads indexed fields: = and :: alike
    assertThat(rows(export("| tstats count where index=logbench logbench_run=run-a by _time span=1m", from, to)
        .body())).containsExactly("0 2021-05-01T03:00:00.000+00:00 3 true");
    assertThat(rows(export("| tstats count where index=logbench logbench_run::run-b by _time span=1m", from, to)
        .body())).containsExactly("0 2021-05-01T03:00:00.000+00:00 2 true");
    // a search: field::value reads the indexed field ...
    HttpResponse<String> indexed =
        export("search index=logbench logbench_run::run-b earliest=" + from + " latest=" + to + " | fields seq", null, null);
    assertThat(seqs(indexed.body())).containsExactly("10", "11");
    // ... while field=value first looks for the value among the raw words: only the event whose
    // text holds "run-b" is found
    HttpResponse<String> raw =
        export("search index=logbench logbench_run=run-b earliest=" + from + " latest=" + to + " | fields seq", null, null);
    assertThat(seqs(raw.body())).containsExactly("11");
  }

  private List<String> seqs(String body) throws Exception {
    List<String> out = new ArrayList<>();
    for (String line : body.split("\n")) {
      if (!line.isBlank()) {
        out.add(json.readTree(line).at("/result/seq").asText());
      }
    }
    return out;
  }

  @Test
  void searchNeedsCredentialsAndTheOneSupportedSearch() throws Exception {
    HttpResponse<String> anonymous =
        post("/services/search/jobs/export", null, "application/x-www-form-urlencoded", "search=x&output_mode=json");
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.body()).isEqualTo("{\"messages\":[{\"type\":\"WARN\",\"text\":\"call not properly authenticated\"}]}");
    HttpResponse<String> other = export("search index=logbench | stats count", null, null);
    assertThat(other.statusCode()).isEqualTo(400);
    assertThat(json.readTree(other.body()).at("/messages/0/type").asText()).isEqualTo("FATAL");
  }

  private List<String> rows(String body) throws Exception {
    List<String> out = new ArrayList<>();
    for (String line : body.split("\n")) {
      JsonNode row = json.readTree(line);
      assertThat(row.get("preview").asBoolean()).isFalse();
      out.add(row.get("offset").asInt() + " " + row.at("/result/_time").asText() + " "
          + row.at("/result/count").asText() + " " + row.path("lastrow").asBoolean(false));
    }
    return out;
  }
}
