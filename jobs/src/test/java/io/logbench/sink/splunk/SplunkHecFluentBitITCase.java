package io.logbench.sink.splunk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.query.NginxLines;
import io.logbench.sink.SendResult;
import io.logbench.sink.SendResult.Kind;
import io.logbench.testing.BoundaryLines;
import io.logbench.testing.FluentBit;
import io.logbench.testing.ExternalServer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * logbench's HEC sender into a real HEC receiver: Fluent Bit's {@code splunk} input (token auth),
 * its records written by the {@code file} output, one JSON object a line, and read back by the
 * test. What a real Splunk adds, indexer acknowledgement and the search API, no free receiver
 * has: those stay on the {@link SplunkHecEmulator}. Skipped, saying so, without {@code
 * LOGBENCH_FLUENTBIT_BIN}.
 */
class SplunkHecFluentBitITCase {

  private static final String TOKEN = "6b0a3f6e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private static FluentBit agent;
  private static Path out;
  private static int port;

  @BeforeAll
  static void start() {
    port = FluentBit.freePort();
    out = ExternalServer.newDirectory("hec-out");
    agent = FluentBit.start("hec", String.join("\n",
        "  inputs:",
        "    - name: splunk",
        "      listen: 127.0.0.1",
        "      port: " + port,
        "      splunk_token: " + TOKEN,
        "      tag: hec",
        "  outputs:",
        "    - name: file",
        "      match: hec",
        "      path: " + out,
        "      file: events.jsonl",
        "      format: plain"));
    agent.awaitListening(port);
  }

  @AfterAll
  static void stop() {
    if (agent != null) {
      agent.close();
    }
    ExternalServer.deleteTree(out);
  }

  private static SplunkSender sender(String token, StreamCatalog streams, String runId, boolean ack) {
    return SplunkSender.builder().url("http://127.0.0.1:" + port).token(token).streams(streams).runId(runId)
        .sourcetype("logbench").index("main").ack(ack).ackTimeout(Duration.ofSeconds(10))
        .requestTimeout(Duration.ofSeconds(10)).build();
  }

  /** The records of {@code runId} the agent has written, once there are {@code n} of them. */
  private static List<JsonNode> records(String runId, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    List<JsonNode> mine = new ArrayList<>();
    while (true) {
      mine.clear();
      Path file = out.resolve("events.jsonl");
      if (Files.exists(file)) {
        // complete lines only: Fluent Bit may be writing the last one
        String text = Files.readString(file, StandardCharsets.UTF_8);
        String complete = text.substring(0, text.lastIndexOf('\n') + 1);
        for (String line : complete.lines().toList()) {
          JsonNode r = JSON.readTree(line);
          if (runId.equals(r.path("fields").path("logbench_run").asText())) {
            mine.add(r);
          }
        }
      }
      if (mine.size() >= n || System.nanoTime() > deadline) {
        assertThat(mine).as("records of run %s written by Fluent Bit; its log:%n%s", runId, agent.log()).hasSize(n);
        return mine;
      }
      Thread.sleep(100);
    }
  }

  @Test
  void everyEventArrivesWithItsLineItsFieldsAndItsTimeTruncatedToTheMicrosecond() throws Exception {
    BoundaryLines boundary = new BoundaryLines();
    NginxLines nginx = new NginxLines("2021-05-01T00:59:59-03:00", 2_500);
    List<LineBatch> batches = new ArrayList<>(nginx.batches(500));
    Map<Long, LineBatch> bySeq = new HashMap<>();
    try (SplunkSender s = sender(TOKEN, NginxLines.DATASET.streams(), "hec-nginx", false)) {
      for (LineBatch b : batches) {
        SendResult r = s.send(b).get(30, TimeUnit.SECONDS);
        assertThat(r.kind()).as("%s", r).isEqualTo(Kind.ACCEPTED);
        assertThat(r.status()).isEqualTo(200);
        for (int k = 0; k < b.count(); k++) {
          bySeq.put(b.seq(k), b);
        }
      }
    }
    try (SplunkSender s = sender(TOKEN, boundary.streams(), "hec-boundary", false)) {
      assertThat(s.send(boundary.batch()).get(30, TimeUnit.SECONDS).kind()).isEqualTo(Kind.ACCEPTED);
    }
    for (String run : new String[] {"hec-nginx", "hec-boundary"}) {
      LineBatch only = run.equals("hec-boundary") ? boundary.batch() : null;
      List<JsonNode> got = records(run, only != null ? only.count() : 2_500);
      for (JsonNode r : got) {
        long seq = Long.parseLong(r.path("fields").path("seq").asText());
        LineBatch b = only != null ? only : bySeq.get(seq);
        int k = (int) (seq - b.firstSeq());
        assertThat(r.path("event").asText()).isEqualTo(b.lineAsString(k));
        assertThat(r.path("sourcetype").asText()).isEqualTo("logbench");
        assertThat(r.path("index").asText()).isEqualTo("main");
        long nanos = b.timestampNanos(k);
        BigDecimal time = r.path("time").decimalValue();
        // at most microseconds, truncated: the line's millisecond (so its window) is kept
        BigDecimal truncated = BigDecimal.valueOf(nanos / 1_000L, 6);
        assertThat(time).as("time of seq %d (%d ns)", seq, nanos).isEqualByComparingTo(truncated);
        assertThat(time.movePointRight(3).longValue()).isEqualTo(Math.floorDiv(nanos, 1_000_000L));
      }
    }
  }

  @Test
  void aWrongTokenIsFatal403AndNeverShown() throws Exception {
    LineBatch b = new NginxLines("2021-05-01T00:00:00-03:00", 10).batches(10).get(0);
    try (SplunkSender wrong = sender("not-the-token", NginxLines.DATASET.streams(), "hec-wrong", false)) {
      SendResult r = wrong.send(b).get(30, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(Kind.FATAL);
      assertThat(r.status()).isEqualTo(403);
      assertThat(r.rejections()).extracting(SendResult.Rejection::reason).containsExactly("403 Invalid token");
      assertThat(r.detail()).isEqualTo("HEC refused the events: 403 Invalid token (code 4)");
    }
  }

  @Test
  void withAckOnAReceiverWithoutIndexerAcknowledgementEachBatchIsTakenAndSaysSo() throws Exception {
    LineBatch b = new NginxLines("2021-05-01T00:30:00-03:00", 100).batches(100).get(0);
    try (SplunkSender s = sender(TOKEN, NginxLines.DATASET.streams(), "hec-ack", true)) {
      SendResult r = s.send(b).get(30, TimeUnit.SECONDS);
      assertThat(r.kind()).isEqualTo(Kind.ACCEPTED);
      assertThat(r.detail()).isEqualTo("HEC answered Success without an ackId: indexer acknowledgement is not"
          + " enabled on the token");
    }
    assertThat(records("hec-ack", 100)).hasSize(100);
  }

}
