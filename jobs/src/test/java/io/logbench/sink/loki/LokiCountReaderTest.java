package io.logbench.sink.loki;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.config.Durations;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.app.AppJsonStreams;
import io.logbench.dataset.nginx.NginxMonthDataset;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigNode;
import io.logbench.http.BasicAuth;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.Specs;
import io.logbench.sink.emulator.WindowedPush;
import io.logbench.testing.BoundaryLines;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LokiCountReader against the LokiEmulator: window mapping, splitting, loss, dedup, errors. */
class LokiCountReaderTest {

  private static final long MINUTE = 60_000L;
  private static final long DAY = 86_400_000L;
  /** Auth on: a reader that forgot the tenant header would get 401, and counts are per tenant. */
  private final LokiEmulator loki = new LokiEmulator().authEnabled(true);

  @AfterEach
  void stop() {
    loki.close();
  }

  private LokiBackend backend(String timeout) {
    return new LokiBackend("loki", URI.create(loki.url()), LokiBackend.Format.PROTOBUF, "team-a",
        Map.of(), null, Duration.parse("PT" + timeout), Duration.parse("PT" + timeout));
  }

  private void push(WindowedPush data) {
    try (BatchSender sender = backend("5S").open(RunContext.of(data.dataset().streams()))) {
      data.sendAll(sender);
    }
  }

  @Test
  void countsPerMinuteEqualTheLinesPushedPerMinuteInOneQuery() throws IOException {
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS + 17_000, 40, 283 * 40, MAY_2021_MILLIS, MINUTE, 5);
    push(data);
    try (LokiCountReader reader = backend("5S").openCounter(RunContext.of(data.dataset().streams()))) {
      long[] counts = reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 5 * MINUTE, MINUTE);
      assertThat(counts).containsExactly(data.expected());
      assertThat(counts[0]).isEqualTo(43 * 40);
      assertThat(reader.stats().requests()).isEqualTo(1);
    }
    assertThat(loki.lastQueryParams().get("query"))
        .isEqualTo("sum(count_over_time({namespace=\"loadtest\"}[1m]))");
  }

  @Test
  void selectorUsesStaticLabelsAndSharedLabelsOrARegexOnTheFirstLabel() {
    LokiBackend withLabels = new LokiBackend("loki", URI.create(loki.url()), LokiBackend.Format.JSON,
        null, Map.of("env", "bench"), null, Duration.ofSeconds(1), Duration.ofSeconds(1));
    assertThat(LokiCountReader.selector(withLabels, new AppJsonStreams(3)))
        .isEqualTo("{env=\"bench\", namespace=\"loadtest\"}");
    assertThat(LokiCountReader.selector(backend("1S"),
            new NginxMonthDataset(4, NginxMonthDataset.Mode.PYTHON_COMPATIBLE).streams()))
        .isEqualTo("{job=\"nginx\"}");
    var single = new AppJsonStreams(1);
    var noShared = new io.logbench.dataset.StreamCatalog() {
      @Override
      public int size() {
        return 2;
      }

      @Override
      public Map<String, String> labels(int id) {
        return Map.of("app", "a" + id);
      }

      @Override
      public List<String> labelNames() {
        return List.of("app");
      }
    };
    assertThat(LokiCountReader.selector(backend("1S"), noShared)).isEqualTo("{app=~\".+\"}");
    assertThat(LokiCountReader.selector(backend("1S"), single))
        .isEqualTo("{namespace=\"loadtest\", container=\"k6-0\"}");
  }

  @Test
  void daysAlignedToSaoPauloMidnightSplitAtThreeUtc() throws IOException {
    long from = MAY_2021_MILLIS - DAY;
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS - 2 * MINUTE, 20, 5 * 60 * 20, from, DAY, 2);
    push(data);
    try (LokiCountReader reader = backend("5S").openCounter(RunContext.of(data.dataset().streams()))) {
      long[] counts = reader.counts(from, from + 2 * DAY, DAY);
      assertThat(counts).containsExactly(2 * 60 * 20, 3 * 60 * 20);
    }
    assertThat(loki.lastQueryParams().get("query")).endsWith("[1d] offset 21h))");
  }

  @Test
  void minutesHoursAndDaysOfSaoPauloCountEveryBoundaryLineInItsWindow() throws IOException {
    BoundaryLines lines = new BoundaryLines();
    try (BatchSender sender = backend("5S").open(RunContext.of(lines.streams()))) {
      WindowedPush.sendAccepted(sender, lines.batch());
    }
    for (Duration size : BoundaryLines.SIZES) {
      try (LokiCountReader reader = backend("5S").openCounter(RunContext.of(lines.streams()))) {
        assertThat(reader.counts(BoundaryLines.FROM, BoundaryLines.TO, size.toMillis())).as("%s windows", size)
            .containsExactly(lines.expected(size.toMillis()));
      }
      // days start at 03:00Z: points at 00:00Z, the range shifted back by 21h
      assertThat(loki.lastQueryParams().get("query")).as("%s windows", size).isEqualTo(
          "sum(count_over_time({namespace=\"loadtest\"}[" + Durations.format(size) + "]"
              + (size.toDays() == 1 ? " offset 21h" : "") + "))");
    }
  }

  @Test
  void linesOnTheFirstAndLastNanosecondOfAWindowCountInThatWindow() throws IOException {
    AppJsonStreams streams = new AppJsonStreams(1);
    long start = MAY_2021_MILLIS + MINUTE;
    LineBatch first = line(0, start);
    LineBatch last = line(999_998, start + MINUTE - 1);
    assertThat(first.timestampNanos(0)).isEqualTo(start * 1_000_000L + 1);
    assertThat(last.timestampNanos(0)).isEqualTo((start + MINUTE) * 1_000_000L - 1);
    try (BatchSender sender = backend("5S").open(RunContext.of(streams))) {
      WindowedPush.sendAccepted(sender, first);
      WindowedPush.sendAccepted(sender, last);
    }
    try (LokiCountReader reader = backend("5S").openCounter(RunContext.of(streams))) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * MINUTE, MINUTE))
          .containsExactly(0, 2, 0);
      assertThat(reader.sequenceIds(start, start + MINUTE, 10)).containsExactly(0L, 999_998L);
    }
  }

  private static LineBatch line(long seq, long millis) {
    LineBatch b = new LineBatch();
    b.reset(seq, seq);
    byte[] text = ("GET /page" + seq).getBytes(StandardCharsets.UTF_8);
    b.append(text, 0, text.length, millis, 0);
    return b;
  }

  @Test
  void identicalLinesPushedTwiceAreObservedOnce() throws IOException {
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS, 10, 1200, MAY_2021_MILLIS, MINUTE, 2);
    try (BatchSender sender = backend("5S").open(RunContext.of(data.dataset().streams()))) {
      data.sendAll(sender);
      WindowedPush.sendAccepted(sender, data.batch(1));
    }
    try (LokiCountReader reader = backend("5S").openCounter(RunContext.of(data.dataset().streams()))) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 2 * MINUTE, MINUTE))
          .containsExactly(data.expected());
    }
    assertThat(loki.duplicatesDropped()).isEqualTo(data.expected()[1]);
  }

  @Test
  void moreThan11000PointsAreSplitIntoQueriesTheEmulatorAccepts() throws IOException {
    AppJsonStreams streams = new AppJsonStreams(1);
    try (BatchSender sender = backend("5S").open(RunContext.of(streams))) {
      for (long second : new long[] {0, 10_999, 11_000, 19_999}) {
        WindowedPush.sendAccepted(sender, line(second, MAY_2021_MILLIS + second * 1000 + 999));
      }
    }
    try (LokiCountReader reader = backend("5S").openCounter(RunContext.of(streams))) {
      long[] counts = reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 20_000_000L, 1000);
      assertThat(counts).hasSize(20_000);
      assertThat(counts[0] + counts[10_999] + counts[11_000] + counts[19_999]).isEqualTo(4);
      assertThat(counts).containsOnly(0, 1);
      assertThat(reader.stats().requests()).isEqualTo(2);
    }
  }

  @Test
  void rangesLongerThanMaxQueryLengthAreSplit() throws IOException {
    AppJsonStreams streams = new AppJsonStreams(1);
    long hour = 3_600_000L;
    try (BatchSender sender = backend("5S").open(RunContext.of(streams))) {
      WindowedPush.sendAccepted(sender, line(1, MAY_2021_MILLIS + 5 * hour + 7));
      WindowedPush.sendAccepted(sender, line(2, MAY_2021_MILLIS + 45 * DAY + 7));
    }
    assertThat(LokiCountReader.windowsPerQuery(hour, 0)).isEqualTo(30 * 24 + 1);
    try (LokiCountReader reader = backend("5S").openCounter(RunContext.of(streams))) {
      long[] counts = reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 60 * DAY, hour);
      assertThat(counts).hasSize(60 * 24);
      assertThat(counts[5]).isEqualTo(1);
      assertThat(counts[45 * 24]).isEqualTo(1);
      assertThat(counts).containsOnly(0, 1);
      assertThat(reader.stats().requests()).isEqualTo(2);
      assertThat(reader.sequenceIds(MAY_2021_MILLIS, MAY_2021_MILLIS + 60 * DAY, 10))
          .containsExactly(1L, 2L);
    }
  }

  @Test
  void linesLostAfterAcceptanceShowInExactlyTheirWindowAndSequenceIdsListTheRest()
      throws IOException {
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS, 100, 18_000, MAY_2021_MILLIS, MINUTE, 3);
    try (BatchSender sender = backend("5S").open(RunContext.of(data.dataset().streams()))) {
      WindowedPush.sendAccepted(sender, data.batch(0));
      loki.faults().loseFromNext(7);
      WindowedPush.sendAccepted(sender, data.batch(1));
      WindowedPush.sendAccepted(sender, data.batch(2));
    }
    long[] expected = data.expected();
    try (LokiCountReader reader = backend("5S").openCounter(RunContext.of(data.dataset().streams()))) {
      long[] counts = reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * MINUTE, MINUTE);
      assertThat(counts).containsExactly(expected[0], expected[1] - 7, expected[2]);
      long requests = reader.stats().requests();
      List<Long> ids = reader.sequenceIds(MAY_2021_MILLIS + MINUTE, MAY_2021_MILLIS + 2 * MINUTE, 10_000);
      // 6000 lines, at most 5000 a request: the reader pages.
      assertThat(reader.stats().requests() - requests).isEqualTo(2);
      Set<Long> stored = new HashSet<>();
      for (LokiEmulator.Entry e : loki.entries()) {
        stored.add(io.logbench.count.LineIds.seqField(e.line()));
      }
      List<Long> complement = new ArrayList<>(data.ids(1));
      complement.retainAll(stored);
      assertThat(data.ids(1).size() - complement.size()).isEqualTo(7);
      assertThat(ids).containsExactlyInAnyOrderElementsOf(complement);
      assertThat(reader.sequenceIds(MAY_2021_MILLIS + MINUTE, MAY_2021_MILLIS + 2 * MINUTE, 10))
          .hasSize(10);
    }
  }

  @Test
  void aFailedAnswerIsAnIOExceptionNamingTheWindowAndStatus() {
    AppJsonStreams streams = new AppJsonStreams(2);
    try (LokiCountReader reader = backend("5S").openCounter(RunContext.of(streams))) {
      loki.queryFaults().failNext(1, 500, "internal error: too many outstanding requests");
      assertThatThrownBy(() -> reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessage("Loki backend 'loki' answered 500 to the count query over"
              + " [2021-05-01T03:00:00Z, 2021-05-01T03:03:00Z): internal error.");
      loki.queryFaults().garbageNext(1, 200);
      assertThatThrownBy(() -> reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessage("Loki backend 'loki''s answer to the count query over"
              + " [2021-05-01T03:00:00Z, 2021-05-01T03:03:00Z) cannot be read (not JSON).");
      loki.queryFaults().failNext(1, 400, "parse error");
      assertThatThrownBy(() -> reader.sequenceIds(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, 5))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Loki backend 'loki' answered 400 to the log query over");
    }
  }

  @Test
  void aFailureOfTheSecondPieceFailsTheWholeCount() {
    AppJsonStreams streams = new AppJsonStreams(2);
    try (LokiCountReader reader = backend("5S").openCounter(RunContext.of(streams))) {
      loki.queryFaults().delayNext(1, Duration.ZERO).failNext(1, 503, "");
      assertThatThrownBy(() -> reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 20_000_000L, 1000))
          .isInstanceOf(IOException.class)
          .hasMessage("Loki backend 'loki' answered 503 to the count query over"
              + " [2021-05-01T06:03:20Z, 2021-05-01T08:33:20Z).");
      assertThat(reader.stats().requests()).isEqualTo(2);
    }
  }

  /** A block as a run file has it, with the emulator's URL and tenant. */
  private LokiBackend block(String timeouts) throws IOException {
    return Specs.parse(LokiBackend.TYPE, new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(
        "kind: loki\nurl: " + loki.url() + "\ntenant: team-a\n" + timeouts), "backends[0]"));
  }

  /**
   * A count answered after 1 s is a count when {@code query_timeout} allows it, though the push
   * {@code timeout} is 200 ms; with {@code query_timeout} 300 ms it is an error naming it.
   */
  @Test
  void aCountQueryHasQueryTimeoutNotThePushTimeout() throws IOException {
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS, 10, 1200, MAY_2021_MILLIS, MINUTE, 2);
    push(data);
    RunContext run = RunContext.of(data.dataset().streams());
    loki.queryFaults().delayNext(1, Duration.ofSeconds(1));
    try (LokiCountReader reader = block("timeout: 200ms\nquery_timeout: 10s\n").openCounter(run)) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 2 * MINUTE, MINUTE)).containsExactly(data.expected());
      assertThat(reader.stats().nanos()).as("the answer took longer than timeout").isGreaterThan(200_000_000L);
    }
    loki.queryFaults().delayNext(1, Duration.ofSeconds(1));
    try (LokiCountReader reader = block("timeout: 10s\nquery_timeout: 300ms\n").openCounter(run)) {
      assertThatThrownBy(() -> reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 2 * MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessageEndingWith(" within 300 ms.");
    }
  }

  @Test
  void aBackendThatHangsGivesAnIOExceptionAfterTheTimeout() {
    try (LokiCountReader reader = backend("0.5S").openCounter(RunContext.of(new AppJsonStreams(2)))) {
      loki.queryFaults().hangNext(1);
      assertThatThrownBy(() -> reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessage("Loki backend 'loki' did not answer the count query over"
              + " [2021-05-01T03:00:00Z, 2021-05-01T03:01:00Z) within 500 ms.");
    }
  }

  @Test
  void windowsThatDoNotTileTheRangeAreRefused() {
    try (LokiCountReader reader = backend("1S").openCounter(RunContext.of(new AppJsonStreams(2)))) {
      assertThatThrownBy(() -> reader.counts(0, 90_000, MINUTE))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Expected windows of a positive size tiling [from, to), got [0, 90000) with"
              + " windows of 60000 ms.");
    }
  }

  @Test
  void queriesCarryTheTenantAndBasicAuthLikePushes(@TempDir Path dir) throws IOException {
    Path secret = Files.writeString(dir.resolve("loki-password"), "s3cret\n");
    LokiBackend spec = new LokiBackend("loki", URI.create(loki.url()), LokiBackend.Format.JSON,
        "team-a", Map.of(), new BasicAuth("bench", new io.logbench.config.SecretRef("the password", null, secret.toString())), Duration.ofSeconds(5), Duration.ofSeconds(5));
    try (LokiCountReader reader = spec.openCounter(RunContext.of(new AppJsonStreams(2)))) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, MINUTE)).containsExactly(0);
    }
    assertThat(loki.lastQueryAuthorization()).isEqualTo("Basic "
        + Base64.getEncoder().encodeToString("bench:s3cret".getBytes(StandardCharsets.UTF_8)));
  }
}
