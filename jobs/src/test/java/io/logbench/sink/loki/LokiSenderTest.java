package io.logbench.sink.loki;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static io.logbench.sink.emulator.TestBatches.batch;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.app.AppJsonStreams;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult.Kind;
import io.logbench.sink.SendResult;
import io.logbench.sink.Specs;
import io.logbench.sink.loki.internal.LokiPushErrors;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** LokiSender against the LokiEmulator: request shapes and every class of answer. */
class LokiSenderTest {

  private static final AppJsonStreams STREAMS = new AppJsonStreams(3);
  private static final long MAY_2021_NANOS = MAY_2021_MILLIS * 1_000_000L;
  private final LokiEmulator loki = new LokiEmulator();

  @AfterEach
  void stop() {
    loki.close();
  }

  private LokiBackend backend(String format, String tenant, String timeout) {
    ObjectNode n = new ObjectMapper().createObjectNode();
    n.put("kind", "loki").put("url", loki.url()).put("format", format).put("timeout", timeout);
    if (tenant != null) {
      n.put("tenant", tenant);
    }
    n.putObject("labels").put("job", "logbench");
    return Specs.parse(LokiBackend.TYPE, new ConfigNode(n, "backends[0]"));
  }

  private SendResult send(LokiBackend spec, LineBatch batch) {
    try (BatchSender sender = spec.open(RunContext.of(STREAMS))) {
      return sender.send(batch).join();
    }
  }

  private SendResult send(LineBatch batch) {
    return send(backend("protobuf", null, "5s"), batch);
  }

  @Test
  void jsonPushCarriesEveryLineWithItsStreamLabelsAndNanosecondTimestamp() {
    LineBatch b = batch(1000, 7, MAY_2021_MILLIS, 3, 3);
    SendResult r = send(backend("json", "team-a", "5s"), b);
    assertThat(r).isEqualTo(SendResult.accepted(7, 204));
    assertPushMatches(b, "application/json");
    assertThat(loki.lastPush().tenant()).isEqualTo("team-a");
  }

  @Test
  void protobufPushCarriesEveryLineWithItsStreamLabelsAndNanosecondTimestamp() {
    LineBatch b = batch(5, 7, MAY_2021_MILLIS, 3, 3);
    SendResult r = send(backend("protobuf", "team-b", "5s"), b);
    assertThat(r).isEqualTo(SendResult.accepted(7, 204));
    assertPushMatches(b, "application/x-protobuf");
    assertThat(loki.lastPush().contentEncoding()).isNull();
    assertThat(loki.lastPush().tenant()).isEqualTo("team-b");
  }

  private void assertPushMatches(LineBatch b, String contentType) {
    LokiEmulator.Push push = loki.lastPush();
    assertThat(push.contentType()).isEqualTo(contentType);
    List<String> expected = new ArrayList<>();
    for (int s = 0; s < 3; s++) {
      for (int k = 0; k < b.count(); k++) {
        if (b.stream(k) == s) {
          expected.add("{container=\"k6-" + s + "\", job=\"logbench\", namespace=\"loadtest\"} "
              + b.timestampNanos(k) + " " + b.lineAsString(k));
        }
      }
    }
    List<String> actual = new ArrayList<>();
    for (LokiEmulator.PushedStream s : push.streams()) {
      String labels = LokiEmulator.canonical(LokiEmulator.parseLabels(s.labels()));
      for (int i = 0; i < s.lines().size(); i++) {
        actual.add(labels + " " + s.nanos().get(i)[0] + " " + s.lines().get(i));
      }
    }
    assertThat(actual).containsExactlyElementsOf(expected);
    assertThat(push.streams()).hasSize(3);
    for (int k = 0; k < b.count(); k++) {
      assertThat(b.timestampNanos(k) % 1_000_000L).isNotZero();
    }
  }

  @Test
  void timestampTooOldRejectsTheOldLinesAndStoresTheOthers() {
    long now = MAY_2021_NANOS + Duration.ofDays(8).toNanos();
    loki.rejectOldSamples(Duration.ofDays(7)).clock(() -> now);
    LineBatch b = new LineBatch();
    b.reset(0, 100);
    long fresh = MAY_2021_MILLIS + Duration.ofDays(8).minusHours(1).toMillis();
    long[] times = {MAY_2021_MILLIS, fresh, MAY_2021_MILLIS + 1, fresh + 1, MAY_2021_MILLIS + 2};
    for (int k = 0; k < times.length; k++) {
      byte[] t = ("line " + k).getBytes(StandardCharsets.UTF_8);
      b.append(t, 0, t.length, times[k], k % 3);
    }
    SendResult r = send(b);
    assertThat(r.kind()).isEqualTo(Kind.PARTIAL);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.accepted()).isEqualTo(2);
    assertThat(r.rejections()).hasSize(1);
    SendResult.Rejection rej = r.rejections().get(0);
    assertThat(rej.reason()).isEqualTo("400 timestamp too old");
    assertThat(rej.count()).isEqualTo(3);
    assertThat(rej.lines()).isEqualTo(bits(0, 2, 4));
    assertThat(r.retry().isEmpty()).isTrue();
    assertThat(loki.linesStored()).isEqualTo(2);
  }

  @Test
  void aBatchWhollyTooOldIsFatalWithItsLinesNamed() {
    loki.rejectOldSamples(Duration.ofDays(7));
    SendResult r = send(batch(0, 4, MAY_2021_MILLIS, 10, 3));
    assertThat(r.kind()).isEqualTo(Kind.FATAL);
    assertThat(r.accepted()).isZero();
    assertThat(r.rejections().get(0).lines()).isEqualTo(bits(0, 1, 2, 3));
    assertThat(loki.linesStored()).isZero();
  }

  @Test
  void entriesTooFarBehindTheirStreamAreRejectedByTimestampAndTheOthersStored() {
    long hour = Duration.ofHours(1).toMillis();
    assertThat(send(batch(0, 3, MAY_2021_MILLIS + 3 * hour, 1, 3)).kind()).isEqualTo(Kind.ACCEPTED);
    LineBatch late = new LineBatch();
    late.reset(1, 3);
    long[] times = {MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * hour + 10, MAY_2021_MILLIS + 1};
    for (int k = 0; k < 3; k++) {
      byte[] t = ("late " + k).getBytes(StandardCharsets.UTF_8);
      late.append(t, 0, t.length, times[k], 0);
    }
    SendResult r = send(late);
    assertThat(r.kind()).isEqualTo(Kind.PARTIAL);
    assertThat(r.accepted()).isEqualTo(1);
    assertThat(r.rejections())
        .containsExactly(new SendResult.Rejection("400 entry too far behind", 2, bits(0, 2)));
    assertThat(loki.linesStored()).isEqualTo(4);
  }

  @Test
  void aTruncatedListOfIgnoredEntriesIsCountedWithoutNamingLines() {
    LineBatch b = batch(0, 12, MAY_2021_MILLIS, 1, 1);
    String body = "entry with timestamp " + LokiEmulator.goTime(b.timestampNanos(0))
        + " ignored, reason: 'entry too far behind, entry timestamp is: 2021-05-01T03:00:00Z,"
        + " oldest acceptable timestamp is: 2021-05-01T04:00:00Z',\n"
        + "user 'fake', total ignored: 11 out of 12 for stream: {container=\"k6-0\"}";
    SendResult r = LokiSender.classify(b, 400, body.getBytes(StandardCharsets.UTF_8));
    assertThat(r.kind()).isEqualTo(Kind.PARTIAL);
    assertThat(r.accepted()).isEqualTo(1);
    assertThat(r.rejectedCount()).isEqualTo(11);
    assertThat(r.rejections()).allSatisfy(x -> assertThat(x.lines()).isNull());
  }

  @Test
  void linesOverMaxLineSizeAreRejectedAndTheOthersStored() {
    loki.maxLineSize(10);
    LineBatch b = new LineBatch();
    b.reset(0, 0);
    String[] texts = {"short", "this line is too long", "tiny"};
    for (int k = 0; k < 3; k++) {
      byte[] t = texts[k].getBytes(StandardCharsets.UTF_8);
      b.append(t, 0, t.length, MAY_2021_MILLIS + k, 0);
    }
    SendResult r = send(b);
    assertThat(r.kind()).isEqualTo(Kind.PARTIAL);
    assertThat(r.rejections())
        .containsExactly(new SendResult.Rejection(LokiPushErrors.LINE_TOO_LONG, 1, bits(1)));
    assertThat(loki.linesStored()).isEqualTo(2);
  }

  @Test
  void otherBadRequestsAreFatalWithTheirStatusAndShortText() {
    loki.faults().failNext(1, 400, "error at least one label pair is required per stream\n");
    SendResult r = send(batch(0, 5, MAY_2021_MILLIS, 1, 3));
    assertThat(r.kind()).isEqualTo(Kind.FATAL);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.rejections())
        .containsExactly(new SendResult.Rejection(
            "400 error at least one label pair is required per stream", 5, null));
    assertThat(r.retry().isEmpty()).isTrue();
  }

  @Test
  void aMissingTenantIsFatal401WhenAuthIsOn() {
    loki.authEnabled(true);
    SendResult r = send(batch(0, 5, MAY_2021_MILLIS, 1, 3));
    assertThat(r.kind()).isEqualTo(Kind.FATAL);
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.rejections().get(0).reason()).isEqualTo("401 no org id");
    assertThat(send(backend("protobuf", "t", "5s"), batch(0, 5, MAY_2021_MILLIS, 1, 3)).kind())
        .isEqualTo(Kind.ACCEPTED);
  }

  @Test
  void forbiddenAndTooLargeAreFatal() {
    loki.faults().failNext(1, 403, "forbidden").failNext(1, 413, "request body too large");
    assertThat(send(batch(0, 2, MAY_2021_MILLIS, 1, 3)).rejections().get(0).reason())
        .isEqualTo("403 forbidden");
    assertThat(send(batch(0, 2, MAY_2021_MILLIS, 1, 3)).rejections().get(0).reason())
        .isEqualTo("413 request body too large");
  }

  @Test
  void theRateLimitIsRetryable429AndStoresNothing() {
    loki.ingestionRate(1, 10);
    SendResult r = send(batch(0, 5, MAY_2021_MILLIS, 1, 3));
    assertThat(r.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(r.status()).isEqualTo(429);
    assertThat(r.retry()).isEqualTo(bits(0, 1, 2, 3, 4));
    assertThat(r.detail()).startsWith("429 Ingestion rate limit exceeded for user fake");
    assertThat(loki.linesStored()).isZero();
  }

  @Test
  void serverErrorsAreRetryable() {
    loki.faults().failNext(1, 500, "internal").failNext(1, 503, "");
    SendResult a = send(batch(0, 3, MAY_2021_MILLIS, 1, 3));
    SendResult b = send(batch(0, 3, MAY_2021_MILLIS, 1, 3));
    assertThat(a.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(a.status()).isEqualTo(500);
    assertThat(a.retry().cardinality()).isEqualTo(3);
    assertThat(b.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(b.status()).isEqualTo(503);
    assertThat(loki.linesStored()).isZero();
  }

  @Test
  void noAnswerWithinTheTimeoutIsRetryableTimeout() {
    loki.faults().hangNext(1);
    SendResult r = send(backend("protobuf", null, "300ms"), batch(0, 3, MAY_2021_MILLIS, 1, 3));
    assertThat(r).isEqualTo(SendResult.retryable(3, 0, "timeout"));
  }

  @Test
  void aDroppedConnectionIsRetryableIo() {
    loki.faults().resetNext(1);
    assertThat(send(batch(0, 3, MAY_2021_MILLIS, 1, 3))).isEqualTo(SendResult.retryable(3, 0, "io"));
  }

  @Test
  void aStoppedServerIsRetryableIo() {
    LokiBackend spec = backend("json", null, "2s");
    loki.close();
    assertThat(send(spec, batch(0, 3, MAY_2021_MILLIS, 1, 3))).isEqualTo(SendResult.retryable(3, 0, "io"));
  }

  @Test
  void garbageIsAcceptedOn2xxAndClassifiedByStatusOtherwise() {
    loki.faults().garbageNext(1, 200).garbageNext(1, 502).garbageNext(1, 400);
    assertThat(send(batch(0, 3, MAY_2021_MILLIS, 1, 3))).isEqualTo(SendResult.accepted(3, 200));
    assertThat(send(batch(0, 3, MAY_2021_MILLIS, 1, 3)).kind()).isEqualTo(Kind.RETRYABLE);
    SendResult fatal = send(batch(0, 3, MAY_2021_MILLIS, 1, 3));
    assertThat(fatal.kind()).isEqualTo(Kind.FATAL);
    assertThat(fatal.status()).isEqualTo(400);
  }

  @Test
  void basicAuthSendsTheFilePasswordAndNeverShowsIt() throws Exception {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("loki", ".pw");
    java.nio.file.Files.writeString(file, "s3cret\n");
    ObjectNode n = new ObjectMapper().createObjectNode();
    n.put("kind", "loki").put("url", loki.url()).put("user", "bench").put("password_file", file.toString());
    LokiBackend spec = Specs.parse(LokiBackend.TYPE, new ConfigNode(n, "backends[0]"));
    assertThat(send(spec, batch(0, 2, MAY_2021_MILLIS, 1, 3)).kind()).isEqualTo(Kind.ACCEPTED);
    assertThat(loki.lastPush().authorization())
        .isEqualTo("Basic " + java.util.Base64.getEncoder().encodeToString("bench:s3cret".getBytes()));
    assertThat(spec.toString()).doesNotContain("s3cret");
    java.nio.file.Files.delete(file);
  }

  static BitSet bits(int... idx) {
    BitSet b = new BitSet();
    for (int i : idx) {
      b.set(i);
    }
    return b;
  }
}
