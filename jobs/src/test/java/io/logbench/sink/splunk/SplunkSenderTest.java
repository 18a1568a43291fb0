package io.logbench.sink.splunk;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.SendResult;
import io.logbench.sink.SendResult.Kind;
import io.logbench.sink.internal.FixedStreams;
import io.logbench.sink.internal.TestBatches;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HEC sender against the {@link SplunkHecEmulator}: request shape, error classes, acks. */
class SplunkSenderTest {

  private static final String TOKEN = "11111111-2222-3333-4444-555555555555";
  private static final long T0 = Instant.parse("2021-05-01T03:00:00Z").toEpochMilli();
  private static final FixedStreams STREAMS =
      new FixedStreams(Map.of("job", "nginx", "status", "200"), Map.of("job", "api", "status", "500"));

  private final SplunkHecEmulator hec = SplunkHecEmulator.start(TOKEN);
  private final List<SplunkSender> senders = new ArrayList<>();
  private final LineBatch batch =
      TestBatches.of(4, 500, T0, new int[] {0, 1}, "GET / \"q\" 200", "tab\there", "é ✓");

  @AfterEach
  void stop() {
    senders.forEach(SplunkSender::close);
    hec.close();
  }

  private SplunkSender.Builder builder() {
    return SplunkSender.builder()
        .url(hec.url())
        .token(TOKEN)
        .streams(STREAMS)
        .index("logbench")
        .source("logbench-test")
        .host("bench-1")
        .requestTimeout(Duration.ofSeconds(20));
  }

  private SplunkSender open(SplunkSender.Builder b) {
    SplunkSender s = b.build();
    senders.add(s);
    return s;
  }

  private static SendResult result(CompletableFuture<SendResult> f) throws Exception {
    return f.get(60, TimeUnit.SECONDS);
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting until " + what + ".");
      }
      Thread.sleep(10);
    }
  }

  @Test
  void requestCarriesTheTokenAndEventsThatDecodeBackToTheLines() throws Exception {
    SendResult r = result(open(builder()).send(batch));
    assertThat(r).isEqualTo(SendResult.accepted(3, 200));
    SplunkHecEmulator.Received req = hec.received().get(0);
    assertThat(req.header("Authorization")).isEqualTo("Splunk " + TOKEN);
    assertThat(req.header("Content-Type")).isEqualTo("application/json");
    assertThat(req.header("X-Splunk-Request-Channel")).isNull();
    assertThat(hec.events()).hasSize(3);
    for (int k = 0; k < 3; k++) {
      SplunkHecEmulator.StoredEvent e = hec.events().get(k);
      // HEC gets the line's time truncated to the microsecond
      assertThat(e.timeNanos()).isEqualTo(batch.timestampNanos(k) / 1_000 * 1_000);
      assertThat(e.event()).isEqualTo(batch.lineAsString(k));
      assertThat(e.host()).isEqualTo("bench-1");
      assertThat(e.source()).isEqualTo("logbench-test");
      assertThat(e.sourcetype()).isEqualTo("logbench");
      assertThat(e.index()).isEqualTo("logbench");
      Map<String, String> labels = STREAMS.labels(k % 2);
      assertThat(e.fields())
          .containsEntry("job", labels.get("job"))
          .containsEntry("status", labels.get("status"))
          .containsEntry("seq", Long.toString(500 + k))
          .hasSize(3);
    }
  }

  @Test
  void withAckTheRequestNamesItsChannelAndTheBatchIsAcceptedOnceAcked() throws Exception {
    hec.ackEnabled(true);
    SplunkSender sender = open(builder().ack(true).ackPoll(Duration.ofMillis(20)));
    assertThat(UUID.fromString(sender.channel())).isNotNull();
    SendResult r = result(sender.send(batch));
    assertThat(r).isEqualTo(SendResult.accepted(3, 200));
    assertThat(hec.received().get(0).header("X-Splunk-Request-Channel")).isEqualTo(sender.channel());
    assertThat(hec.ackPolls()).isNotEmpty();
    assertThat(hec.ackPolls().get(hec.ackPolls().size() - 1)).containsExactly(0L);
  }

  @Test
  void pendingAcksAreAskedAboutInOnePoll() throws Exception {
    hec.ackEnabled(true).acksNeverTrue(true);
    SplunkSender sender = open(builder().ack(true).ackPoll(Duration.ofMillis(20)));
    List<CompletableFuture<SendResult>> sent = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      sent.add(sender.send(TestBatches.of(i, i * 10L, T0, new int[] {0}, "a" + i, "b" + i)));
    }
    await(() -> hec.ackPolls().stream().anyMatch(p -> p.size() == 3), "one poll asks about all three ack ids");
    assertThat(sent).noneMatch(CompletableFuture::isDone);
    hec.acksNeverTrue(false);
    for (CompletableFuture<SendResult> f : sent) {
      assertThat(result(f)).isEqualTo(SendResult.accepted(2, 200));
    }
    assertThat(hec.ackPolls().stream().filter(p -> p.size() == 3).findFirst().orElseThrow())
        .containsExactlyInAnyOrder(0L, 1L, 2L);
  }

  @Test
  void anAckThatNeverComesIsARetryableAckTimeoutThoughTheEventsWereStored() throws Exception {
    hec.ackEnabled(true).acksNeverTrue(true);
    SplunkSender sender =
        open(builder().ack(true).ackPoll(Duration.ofMillis(20)).ackTimeout(Duration.ofMillis(300)));
    SendResult r = result(sender.send(batch));
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.retry().cardinality()).isEqualTo(3);
    assertThat(r.detail()).isEqualTo("ack timeout: ackId 0 was not acknowledged within 300ms");
    // No idempotency key in HEC: a retry now would store these lines a second time.
    assertThat(hec.events()).hasSize(3);
  }

  @Test
  void anAckOnATokenWithoutAcknowledgementSaysSo() throws Exception {
    hec.ackEnabled(false);
    SendResult r = result(open(builder().ack(true)).send(batch));
    assertThat(r.kind()).isEqualTo(Kind.ACCEPTED);
    assertThat(r.detail())
        .isEqualTo("HEC answered Success without an ackId: indexer acknowledgement is not enabled on the token");
  }

  @Test
  void missingChannelIsFatal() throws Exception {
    hec.ackEnabled(true);
    SendResult r = result(open(builder().ack(false)).send(batch));
    assertThat(r.kind()).isEqualTo(Kind.FATAL);
    assertThat(r.rejections()).containsExactly(new SendResult.Rejection("400 Data channel is missing", 3, null));
  }

  @Test
  void wrongTokenIsFatalAndNeverShown() throws Exception {
    SplunkSender sender = open(builder().token("wrong-token-value"));
    SendResult r = result(sender.send(batch));
    assertThat(r.kind()).isEqualTo(Kind.FATAL);
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.rejections()).containsExactly(new SendResult.Rejection("403 Invalid token", 3, null));
    assertThat(r.detail()).isEqualTo("HEC refused the events: 403 Invalid token (code 4)");
    assertThat(r.toString()).doesNotContain("wrong-token-value");
    assertThat(sender.toString()).doesNotContain("wrong-token-value").doesNotContain(TOKEN);
  }

  @Test
  void missingTokenAnswerIsFatal() throws Exception {
    hec.failNext(1, 401);
    SendResult r = result(open(builder()).send(batch));
    assertThat(r.kind()).isEqualTo(Kind.FATAL);
    assertThat(r.rejections()).extracting(SendResult.Rejection::reason).containsExactly("401 Token is required");
    assertThat(r.detail()).isEqualTo("HEC refused the events: 401 Token is required (code 2)");
  }

  @Test
  void incorrectIndexIsFatalByReason() throws Exception {
    hec.indexes("main");
    SendResult r = result(open(builder()).send(batch));
    assertThat(r.kind()).isEqualTo(Kind.FATAL);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.rejections()).extracting(SendResult.Rejection::reason).containsExactly("400 Incorrect index");
    assertThat(hec.events()).isEmpty();
  }

  @Test
  void busyThrottledAndServerErrorsAreRetryable() throws Exception {
    hec.failNext(1, 503).failNext(1, 429).failNext(1, 500);
    SplunkSender sender = open(builder());
    SendResult busy = result(sender.send(batch));
    SendResult throttled = result(sender.send(batch));
    SendResult error = result(sender.send(batch));
    assertThat(List.of(busy.kind(), throttled.kind(), error.kind())).containsOnly(Kind.RETRYABLE);
    assertThat(busy.detail()).isEqualTo("503 Server is busy (code 9)");
    assertThat(throttled.detail()).isEqualTo("429 Injected failure");
    assertThat(error.detail()).isEqualTo("500 Internal server error (code 8)");
    assertThat(busy.retry().cardinality()).isEqualTo(3);
    assertThat(hec.events()).isEmpty();
    assertThat(result(sender.send(batch)).kind()).isEqualTo(Kind.ACCEPTED);
  }

  @Test
  void garbageWith200IsRetryable() throws Exception {
    hec.garbageNext(1);
    SendResult r = result(open(builder()).send(batch));
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.detail()).isEqualTo("The HEC answer does not say Success: <html><body>Bad Gateway</body></html>");
  }

  @Test
  void noAnswerInTimeIsARetryableTimeout() throws Exception {
    hec.hangNext(1);
    SendResult r = result(open(builder().requestTimeout(Duration.ofMillis(300))).send(batch));
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.status()).isZero();
    assertThat(r.detail()).isEqualTo("timeout: no answer from HEC in time");
  }

  @Test
  void delayedAnswerStillCounts() throws Exception {
    hec.delayNext(1, Duration.ofMillis(100));
    assertThat(result(open(builder()).send(batch)).kind()).isEqualTo(Kind.ACCEPTED);
    assertThat(hec.events()).hasSize(3);
  }

  @Test
  void refusedConnectionIsRetryableIo() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    SendResult r = result(open(builder().url("http://127.0.0.1:" + port)).send(batch));
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.detail()).startsWith("io: ConnectException");
  }

  @Test
  void lostEventsAreAnsweredSuccessButNotStored() throws Exception {
    hec.loseNext(2);
    assertThat(result(open(builder()).send(batch)).kind()).isEqualTo(Kind.ACCEPTED);
    assertThat(hec.events()).extracting(SplunkHecEmulator.StoredEvent::event).containsExactly("é ✓");
    assertThat(hec.lostCount()).isEqualTo(2);
  }
}
