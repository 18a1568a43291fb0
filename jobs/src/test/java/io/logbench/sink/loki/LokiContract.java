package io.logbench.sink.loki;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.count.CountReader;
import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.count.Probes;
import io.logbench.count.VisibilityProbe;
import io.logbench.dataset.LineBatch;
import io.logbench.http.PrometheusText;
import io.logbench.query.NginxLines;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Footprint;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.SendResult.Kind;
import io.logbench.sink.emulator.TestBatches;
import io.logbench.sink.emulator.WindowedPush;
import io.logbench.sink.loki.LokiBackend.Format;
import io.logbench.sink.loki.LokiBackend.RunIdMode;
import io.logbench.sink.loki.LokiServer.Limits;
import io.logbench.testing.BoundaryLines;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every Loki behaviour logbench relies on, written once and run on the real Loki ({@link
 * LokiServerITCase}) and on the {@link LokiEmulator} ({@link LokiEmulatorContractTest}), so that
 * the emulator cannot drift from the server without a test failing on one of them: pushes in
 * both formats and both run id modes, the count reader's windows at 1m, 1h and 1d in
 * America/Sao_Paulo on boundary lines, drill-down ids, searches, probes, runs kept apart, the
 * 400 and 429 answers of Loki's own limits, and the stored size after a flush. Each test has a
 * tenant of its own.
 */
abstract class LokiContract {

  static final long MINUTE = 60_000L;

  abstract LokiTarget target();

  static LokiBackend backend(LokiTarget.Endpoint at, Format format, RunIdMode mode) {
    return new LokiBackend("loki", URI.create(at.url()), format, at.tenant(), Map.of(), null, Duration.ofSeconds(30),
        Duration.ofSeconds(60), mode, null, Duration.ofMinutes(2));
  }

  static LokiBackend backend(LokiTarget.Endpoint at) {
    return backend(at, Format.PROTOBUF, RunIdMode.STRUCTURED_METADATA);
  }

  static SendResult send(LokiBackend b, RunContext run, LineBatch batch) {
    try (BatchSender sender = b.open(run)) {
      return sender.send(batch).join();
    }
  }

  static BitSet bits(int from, int to) {
    BitSet b = new BitSet();
    b.set(from, to);
    return b;
  }

  @ParameterizedTest(name = "{0} with the run id as {1}")
  @CsvSource({"JSON, STRUCTURED_METADATA", "PROTOBUF, STRUCTURED_METADATA", "JSON, LABEL", "PROTOBUF, LABEL"})
  void everyFormatAndRunIdModeCountsEachMinuteListsItsIdsAndKeepsRunsApart(Format format, RunIdMode mode)
      throws Exception {
    LokiTarget.Endpoint at = target().endpoint(Limits.DEFAULT, "formats");
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS + 17_000, 20, 20 * 250, MAY_2021_MILLIS, MINUTE, 5);
    RunContext run = RunContext.of(data.dataset().streams()).withRunId("run-a");
    LokiBackend b = backend(at, format, mode);
    try (BatchSender sender = b.open(run)) {
      data.sendAll(sender);
    }
    try (CountReader reader = b.openCounter(run); VisibilityProbe probe = b.openProbe(run)) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 5 * MINUTE, MINUTE)).as(target().describe())
          .containsExactly(data.expected());
      data.assertProbeCounts(probe, MAY_2021_MILLIS, MAY_2021_MILLIS + 5 * MINUTE, MINUTE, target().describe());
      assertThat(reader.sequenceIds(MAY_2021_MILLIS + 2 * MINUTE, MAY_2021_MILLIS + 3 * MINUTE, 10_000))
          .containsExactlyInAnyOrderElementsOf(data.ids(2));
    }
    // another run of the same tenant and streams counts none of these lines
    try (CountReader other = b.openCounter(run.withRunId("run-b"))) {
      assertThat(other.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 5 * MINUTE, MINUTE)).containsOnly(0L);
      assertThat(other.sequenceIds(MAY_2021_MILLIS, MAY_2021_MILLIS + 5 * MINUTE, 10)).isEmpty();
    }
    try (VisibilityProbe other = b.openProbe(run.withRunId("run-b"))) {
      assertThat(Probes.counts(other, List.of(Probes.sample(data.dataset(), 100, 50)))).containsExactly(0);
      assertThat(Probes.run(other, MAY_2021_MILLIS, MAY_2021_MILLIS + 5 * MINUTE, MINUTE)).isZero();
    }
  }

  @Test
  void linesOnTheBoundariesOfMinutesHoursAndDaysOfSaoPauloCountInTheirWindows() throws IOException {
    LokiTarget.Endpoint at = target().endpoint(Limits.DEFAULT, "boundaries");
    BoundaryLines lines = new BoundaryLines();
    RunContext run = RunContext.of(lines.streams()).withRunId("boundaries");
    LokiBackend b = backend(at);
    SendResult r = send(b, run, lines.batch());
    assertThat(r.kind()).as("%s", r).isEqualTo(Kind.ACCEPTED);
    try (CountReader reader = b.openCounter(run)) {
      lines.assertCountedInTheirWindows(target().describe(), reader);
    }
  }

  @Test
  void nginxLinesAreNamedByTheSequenceIdsInTheirNanosecondsAndSearchedCellByCell() throws IOException {
    LokiTarget.Endpoint at = target().endpoint(Limits.DEFAULT, "nginx");
    NginxLines lines = new NginxLines("2021-05-01T00:59:50-03:00", 3_000);
    RunContext run = lines.run("nginx-1");
    LokiBackend b = backend(at, Format.JSON, RunIdMode.STRUCTURED_METADATA);
    try (BatchSender sender = b.open(run)) {
      lines.sendAll(sender);
    }
    try (CountReader reader = b.openCounter(run); LokiSearch search = b.openSearch(run)) {
      lines.assertIdsAndSearches(target().describe(), reader, search);
    }
  }

  @Test
  void aRunRepeatingAnotherRunsLinesIntoTheSameStreamsIsDroppedUnlessItsIdIsALabel() throws IOException {
    LokiTarget.Endpoint at = target().endpoint(Limits.DEFAULT, "repeat");
    NginxLines lines = new NginxLines("2021-05-01T00:10:00-03:00", 1_000);
    long from = NginxLines.millis("2021-05-01T00:00:00-03:00");
    long to = from + 3_600_000L;
    LokiBackend metadata = backend(at, Format.PROTOBUF, RunIdMode.STRUCTURED_METADATA);
    try (BatchSender sender = metadata.open(lines.run("first"))) {
      lines.sendAll(sender);
    }
    // the same lines as another run: answered 204 (every line "accepted"), stored not at all
    try (BatchSender sender = metadata.open(lines.run("second"))) {
      lines.sendAll(sender);
    }
    try (CountReader first = metadata.openCounter(lines.run("first"));
        CountReader second = metadata.openCounter(lines.run("second"))) {
      assertThat(first.counts(from, to, to - from)).as(target().describe()).containsExactly(1_000L);
      assertThat(second.counts(from, to, to - from)).as(target().describe()).containsExactly(0L);
    }
    // with the run's id as a stream label the same lines are a stream of their own, stored whole
    LokiBackend label = backend(at, Format.PROTOBUF, RunIdMode.LABEL);
    try (BatchSender sender = label.open(lines.run("third"))) {
      lines.sendAll(sender);
    }
    try (CountReader third = label.openCounter(lines.run("third"))) {
      assertThat(third.counts(from, to, to - from)).containsExactly(1_000L);
    }
  }

  @Test
  void anExactRepeatOfABatchIsAnswered204AndStoredOnce() throws IOException {
    LokiTarget.Endpoint at = target().endpoint(Limits.DEFAULT, "dedup");
    LineBatch batch = TestBatches.batch(0, 50, MAY_2021_MILLIS, 7, 5);
    RunContext run = RunContext.of(new io.logbench.dataset.app.AppJsonStreams(5)).withRunId("dedup");
    LokiBackend b = backend(at);
    assertThat(send(b, run, batch).kind()).isEqualTo(Kind.ACCEPTED);
    assertThat(send(b, run, batch).kind()).isEqualTo(Kind.ACCEPTED);
    try (CountReader reader = b.openCounter(run)) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, MINUTE)).as(target().describe())
          .containsExactly(50L);
    }
  }

  @Test
  void linesOlderThanTheTenantTakesAreRejectedWith400AndNamedWhileTheOthersAreStored() throws IOException {
    LokiTarget.Endpoint at = target().endpoint(Limits.REJECT_OLD_SAMPLES, "old");
    long now = System.currentTimeMillis();
    long fresh = now - now % MINUTE - 10 * MINUTE;
    LineBatch b = new LineBatch();
    b.reset(0, 0);
    long[] times = {MAY_2021_MILLIS, fresh, MAY_2021_MILLIS + 1, fresh + 1, MAY_2021_MILLIS + 2};
    for (int k = 0; k < times.length; k++) {
      byte[] t = TestBatches.line(k).getBytes(StandardCharsets.UTF_8);
      b.append(t, 0, t.length, times[k], k % 3);
    }
    RunContext run = RunContext.of(new io.logbench.dataset.app.AppJsonStreams(3)).withRunId("old");
    LokiBackend backend = backend(at);
    SendResult r = send(backend, run, b);
    assertThat(r.kind()).as("%s on %s", r, target().describe()).isEqualTo(Kind.PARTIAL);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.accepted()).isEqualTo(2);
    BitSet old = new BitSet();
    old.set(0);
    old.set(2);
    old.set(4);
    assertThat(r.rejections()).containsExactly(new SendResult.Rejection("400 timestamp too old", 3, old));
    assertThat(r.detail()).contains("has timestamp too old");
    // a batch of old lines only is fatal, every line named
    SendResult all = send(backend, run, TestBatches.batch(10, 4, MAY_2021_MILLIS, 10, 3));
    assertThat(all.kind()).isEqualTo(Kind.FATAL);
    assertThat(all.rejections()).containsExactly(new SendResult.Rejection("400 timestamp too old", 4, bits(0, 4)));
    try (CountReader reader = backend.openCounter(run)) {
      assertThat(reader.counts(fresh, fresh + MINUTE, MINUTE)).containsExactly(2L);
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, MINUTE)).containsExactly(0L);
    }
  }

  @Test
  void entriesTooFarBehindTheirStreamAreRejectedByTimestampAndTheOthersStored() {
    LokiTarget.Endpoint at = target().endpoint(Limits.DEFAULT, "behind");
    long hour = 3_600_000L;
    RunContext run = RunContext.of(new io.logbench.dataset.app.AppJsonStreams(3)).withRunId("behind");
    LokiBackend backend = backend(at);
    assertThat(send(backend, run, TestBatches.batch(0, 3, MAY_2021_MILLIS + 3 * hour, 1, 3)).kind())
        .isEqualTo(Kind.ACCEPTED);
    LineBatch late = new LineBatch();
    late.reset(1, 3);
    long[] times = {MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * hour + 10, MAY_2021_MILLIS + 1};
    for (int k = 0; k < 3; k++) {
      byte[] t = TestBatches.line(3 + k).getBytes(StandardCharsets.UTF_8);
      late.append(t, 0, t.length, times[k], 0);
    }
    SendResult r = send(backend, run, late);
    assertThat(r.kind()).as("%s on %s", r, target().describe()).isEqualTo(Kind.PARTIAL);
    assertThat(r.accepted()).isEqualTo(1);
    BitSet behind = new BitSet();
    behind.set(0);
    behind.set(2);
    assertThat(r.rejections()).containsExactly(new SendResult.Rejection("400 entry too far behind", 2, behind));
  }

  /** Loki's own answers to raw pushes: about the push's last stream only. */
  @Test
  void theAnswerToAPushOfSeveralStreamsIsAboutItsLastStreamOnly() throws Exception {
    LokiTarget.Endpoint at = target().endpoint(Limits.DEFAULT, "last-stream");
    long t = MAY_2021_MILLIS * 1_000_000L;
    long hour = 3_600_000_000_000L;
    // each stream's newest entry 3 h after the others
    assertThat(rawPush(at, stream("a", t + 3 * hour) + "," + stream("b", t + 3 * hour))).startsWith("204");
    // a too far behind (first stream), b in its window (last stream): 204, a's entry dropped unsaid
    assertThat(rawPush(at, stream("a", t, t + 1) + "," + stream("b", t + 3 * hour + 1))).as(target().describe())
        .isEqualTo("204 ");
    // both too far behind: 400 about b alone
    String both = rawPush(at, stream("a", t + 2, t + 3, t + 4) + "," + stream("b", t + 5));
    assertThat(both).as(target().describe()).startsWith("400 ")
        .contains("total ignored: 1 out of 1 for stream: {", "b\"", "entry too far behind")
        .doesNotContain("total ignored: 3");
    // more than 10 too far behind in one stream: 10 listed, all counted
    long[] many = new long[12];
    for (int i = 0; i < many.length; i++) {
      many[i] = t + 10 + i;
    }
    String listed = rawPush(at, stream("a", many));
    assertThat(listed.split("ignored, reason: 'entry too far behind", -1)).hasSize(11);
    assertThat(listed).contains("total ignored: 12 out of 12 for stream: {");
  }

  private static String stream(String name, long... nanos) {
    StringBuilder b = new StringBuilder("{\"stream\":{\"job\":\"last-stream\",\"s\":\"" + name + "\"},\"values\":[");
    for (int i = 0; i < nanos.length; i++) {
      b.append(i > 0 ? "," : "").append("[\"").append(nanos[i]).append("\",\"line ").append(name).append(i).append("\"]");
    }
    return b.append("]}").toString();
  }

  /** {@code status body} of a JSON push of {@code streams} (comma-separated stream objects). */
  private static String rawPush(LokiTarget.Endpoint at, String streams) throws Exception {
    java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(URI.create(at.url() + "/loki/api/v1/push"))
            .header("Content-Type", "application/json").header("X-Scope-OrgID", at.tenant())
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"streams\":[" + streams + "]}")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body().strip();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"JSON", "PROTOBUF"})
  void everyLineTooFarBehindIsCountedRejectedWhicheverStreamOfThePushItIsIn(Format format) throws IOException {
    LokiTarget.Endpoint at = target().endpoint(Limits.DEFAULT, "behind-streams");
    long hour = 3_600_000L;
    RunContext run = RunContext.of(new io.logbench.dataset.app.AppJsonStreams(3)).withRunId("behind-streams");
    LokiBackend backend = backend(at, format, RunIdMode.STRUCTURED_METADATA);
    try (BatchSender sender = backend.open(run)) {
      assertThat(sender.send(TestBatches.batch(0, 3, MAY_2021_MILLIS + 3 * hour, 1, 3)).join().kind())
          .isEqualTo(Kind.ACCEPTED);
      // stream 0: 12 lines too far behind (more than Loki lists), stream 1: 2 too far behind,
      // stream 2 (the push's last): 3 lines in its window
      LineBatch late = new LineBatch();
      late.reset(1, 3);
      int[] streams = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 2};
      for (int k = 0; k < streams.length; k++) {
        long millis = streams[k] == 2 ? MAY_2021_MILLIS + 3 * hour + 10 + k : MAY_2021_MILLIS + k;
        byte[] text = TestBatches.line(3 + k).getBytes(StandardCharsets.UTF_8);
        late.append(text, 0, text.length, millis, streams[k]);
      }
      SendResult r = sender.send(late).join();
      assertThat(r.kind()).as("%s on %s", r, target().describe()).isEqualTo(Kind.PARTIAL);
      assertThat(r.accepted()).isEqualTo(3);
      assertThat(r.rejections()).containsExactly(new SendResult.Rejection("400 entry too far behind", 14, bits(0, 14)));
    }
    try (CountReader reader = backend.openCounter(run)) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 4 * hour, 4 * hour)).as(target().describe())
          .containsExactly(6L);
    }
  }

  @Test
  void aPushThatWouldPutAnUnansweredOneTooFarBehindWaitsForItsAnswer() throws IOException {
    LokiTarget.Endpoint at = target().endpoint(Limits.DEFAULT, "overtake");
    long hour = 3_600_000L;
    RunContext run = RunContext.of(new io.logbench.dataset.app.AppJsonStreams(2)).withRunId("overtake");
    LokiBackend backend = backend(at);
    try (BatchSender sender = backend.open(run)) {
      var older = sender.send(TestBatches.batch(0, 200, MAY_2021_MILLIS, 1, 2));
      var newer = sender.send(TestBatches.batch(200, 200, MAY_2021_MILLIS + 2 * hour, 1, 2));
      assertThat(older.join().kind()).as("%s on %s", older.join(), target().describe()).isEqualTo(Kind.ACCEPTED);
      assertThat(newer.join().kind()).isEqualTo(Kind.ACCEPTED);
    }
    try (CountReader reader = backend.openCounter(run)) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * hour, 3 * hour)).as(target().describe())
          .containsExactly(400L);
    }
  }

  @Test
  void aPushOverTheTenantsRateLimitIsRetryable429AndAPushWithinItIsTaken() {
    LokiTarget.Endpoint at = target().endpoint(Limits.LOW_RATE, "rate");
    RunContext run = RunContext.of(new io.logbench.dataset.app.AppJsonStreams(5)).withRunId("rate");
    LokiBackend backend = backend(at);
    // 4,000 lines of about 36 bytes: more than the 0.1 MB burst
    SendResult over = send(backend, run, TestBatches.batch(0, 4_000, MAY_2021_MILLIS, 1, 5));
    assertThat(over.kind()).as("%s on %s", over, target().describe()).isEqualTo(Kind.RETRYABLE);
    assertThat(over.status()).isEqualTo(429);
    assertThat(over.retry()).isEqualTo(bits(0, 4_000));
    assertThat(over.detail()).startsWith("429 Ingestion rate limit exceeded for user " + at.tenant());
    assertThat(send(backend, run, TestBatches.batch(0, 100, MAY_2021_MILLIS, 1, 5)).kind()).isEqualTo(Kind.ACCEPTED);
  }

  @Test
  void structuredMetadataIsRefusedWhereTheTenantDisallowsItAndARunIdLabelIsTaken() {
    LokiTarget.Endpoint at = target().endpoint(Limits.NO_STRUCTURED_METADATA, "nosm");
    RunContext run = RunContext.of(new io.logbench.dataset.app.AppJsonStreams(3)).withRunId("nosm");
    SendResult refused = send(backend(at, Format.PROTOBUF, RunIdMode.STRUCTURED_METADATA), run,
        TestBatches.batch(0, 6, MAY_2021_MILLIS, 1, 3));
    assertThat(refused.kind()).as("%s on %s", refused, target().describe()).isEqualTo(Kind.FATAL);
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.rejections()).extracting(SendResult.Rejection::reason)
        .containsExactly("400 structured metadata disallowed");
    assertThat(send(backend(at, Format.JSON, RunIdMode.LABEL), run, TestBatches.batch(0, 6, MAY_2021_MILLIS, 1, 3))
        .kind()).isEqualTo(Kind.ACCEPTED);
  }

  @Test
  void theStoredSizeIsReadAfterAFlushAndIsWhatTheServerHolds() throws IOException {
    LokiTarget.Endpoint at = target().endpoint(Limits.DEFAULT, "footprint");
    NginxLines lines = new NginxLines("2021-05-01T00:00:00-03:00", 20_000);
    RunContext run = lines.run("footprint");
    LokiBackend b = backend(at);
    try (BatchSender sender = b.open(run)) {
      lines.sendAll(sender);
    }
    Footprint f = b.footprint(run).orElseThrow();
    assertThat(f.complete()).as(f.source()).isTrue();
    assertThat(f.source()).contains("tenant=\"" + at.tenant() + "\"", "read after a flush");
    double metric = PrometheusText.sum(target().metrics(), LokiBackend.CHUNK_BYTES_METRIC,
        "tenant=\"" + at.tenant() + "\"").orElseThrow();
    assertThat((double) f.bytes()).as("the footprint beside the server's metric").isEqualTo(metric);
    // every line is in a flushed chunk: at least a byte a line, at most the lines themselves
    assertThat(f.bytes()).isBetween(20_000L, 20_000L * 300);
    OptionalLong files = target().chunkFileBytes(at.tenant());
    if (files.isPresent()) {
      assertThat((double) f.bytes()).as("the footprint beside the chunk files").isCloseTo(files.getAsLong(),
          org.assertj.core.data.Percentage.withPercentage(5));
    }
  }
}
