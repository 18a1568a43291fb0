package io.logbench.sink.victorialogs;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigNode;
import io.logbench.count.LineIds;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.app.AppJsonStreams;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.Specs;
import io.logbench.sink.emulator.WindowedPush;
import io.logbench.testing.BoundaryLines;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** VictoriaLogsCountReader against the VictoriaLogsEmulator: buckets, offsets, loss, errors. */
class VictoriaLogsCountReaderTest {

  private static final long MINUTE = 60_000L;
  private static final long DAY = 86_400_000L;
  private final VictoriaLogsEmulator vl =
      new VictoriaLogsEmulator().retention(Duration.ofDays(36_500));

  @AfterEach
  void stop() {
    vl.close();
  }

  private VictoriaLogsBackend backend(Duration timeout) {
    return new VictoriaLogsBackend("victorialogs", URI.create(vl.url()), "12", "34", null,
        Duration.ofDays(36_500), null, timeout, timeout);
  }

  private VictoriaLogsBackend backend() {
    return backend(Duration.ofSeconds(5));
  }

  private void push(WindowedPush data) {
    try (BatchSender sender = backend().open(RunContext.of(data.dataset().streams()))) {
      data.sendAll(sender);
    }
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
    vl.queryFaults().delayNext(1, Duration.ofSeconds(1));
    try (VictoriaLogsCountReader reader = block("timeout: 200ms\nquery_timeout: 10s\n").openCounter(run)) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 2 * MINUTE, MINUTE)).containsExactly(data.expected());
      assertThat(reader.stats().nanos()).as("the answer took longer than timeout").isGreaterThan(200_000_000L);
    }
    vl.queryFaults().delayNext(1, Duration.ofSeconds(1));
    try (VictoriaLogsCountReader reader = block("timeout: 10s\nquery_timeout: 300ms\n").openCounter(run)) {
      assertThatThrownBy(() -> reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 2 * MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessageEndingWith(" within 300 ms.");
    }
  }

  /** A block as a run file has it, with the emulator's URL and tenant. */
  private VictoriaLogsBackend block(String timeouts) throws IOException {
    return Specs.parse(VictoriaLogsBackend.TYPE, new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(
        "kind: victorialogs\nurl: " + vl.url() + "\naccount_id: 12\nproject_id: 34\nretention: 36500d\n" + timeouts),
        "backends[0]"));
  }

  @Test
  void countsPerMinuteEqualTheLinesPushedPerMinuteInOneQuery() throws IOException {
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS + 17_000, 40, 283 * 40, MAY_2021_MILLIS, MINUTE, 5);
    push(data);
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(data.dataset().streams()))) {
      long[] counts = reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 5 * MINUTE, MINUTE);
      assertThat(counts).containsExactly(data.expected());
      assertThat(counts[0]).isEqualTo(43 * 40);
      assertThat(reader.stats().requests()).isEqualTo(1);
    }
    assertThat(vl.lastSelectParams())
        .containsEntry("query", "{namespace=\"loadtest\"}")
        .containsEntry("step", "1m")
        .containsEntry("start", "2021-05-01T03:00:00Z")
        .containsEntry("end", "2021-05-01T03:04:59.999999999Z");
  }

  @Test
  void zeroFilledBucketsReadAsSparseOnes() throws IOException {
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS + 2 * MINUTE, 10, 600, MAY_2021_MILLIS, MINUTE, 4);
    push(data);
    vl.zeroFill(true);
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(data.dataset().streams()))) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 4 * MINUTE, MINUTE))
          .containsExactly(0, 0, 600, 0);
    }
  }

  @ParameterizedTest
  @EnumSource(VictoriaLogsEmulator.OffsetConvention.class)
  void minutesHoursAndDaysOfSaoPauloCountEveryBoundaryLineInItsWindowInBothOffsetConventions(
      VictoriaLogsEmulator.OffsetConvention convention) throws IOException {
    vl.offsetConvention(convention);
    BoundaryLines lines = new BoundaryLines();
    try (BatchSender sender = backend().open(RunContext.of(lines.streams()))) {
      WindowedPush.sendAccepted(sender, lines.batch());
    }
    for (Duration size : BoundaryLines.SIZES) {
      try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(lines.streams()))) {
        long[] counts = reader.counts(BoundaryLines.FROM, BoundaryLines.TO, size.toMillis());
        assertThat(counts).as("%s windows", size).containsExactly(lines.expected(size.toMillis()));
        assertThat(reader.stats().requests()).as("%s windows", size).isEqualTo(1);
      }
      // no offset at all: the answer cannot depend on the server's sign convention
      assertThat(vl.lastSelectParams()).as("%s windows", size).doesNotContainKey("offset")
          .containsEntry("step", size.toMillis() == DAY ? "3h" : size.toMinutes() == 60 ? "1h" : "1m");
    }
  }

  @ParameterizedTest
  @EnumSource(VictoriaLogsEmulator.OffsetConvention.class)
  void windowsTooFinelyOffTheEpochShiftBucketsWithAnOffsetWhoseSignTheFirstAnswerTells(
      VictoriaLogsEmulator.OffsetConvention convention) throws IOException {
    vl.offsetConvention(convention);
    BoundaryLines lines = new BoundaryLines();
    try (BatchSender sender = backend().open(RunContext.of(lines.streams()))) {
      WindowedPush.sendAccepted(sender, lines.batch());
    }
    // days from 1 s after midnight: 86,400 buckets of 1 s a day would be absurd
    long from = BoundaryLines.FROM - DAY + 1000;
    long[] expected = new long[3];
    for (long i = 0; i < lines.size(); i++) {
      expected[(int) Math.floorDiv(lines.timestampMillis(i) - from, DAY)]++;
    }
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(lines.streams()))) {
      assertThat(reader.counts(from, from + 3 * DAY, DAY)).containsExactly(expected);
      boolean plus = convention == VictoriaLogsEmulator.OffsetConvention.PLUS;
      assertThat(vl.hitsRequests()).extracting(p -> p.get("offset"))
          .containsExactlyElementsOf(plus ? List.of("3h1s") : List.of("3h1s", "-3h1s"));
      assertThat(vl.lastSelectParams()).containsEntry("step", "1d");
      // the sign learnt is kept: one request for the next call
      assertThat(reader.counts(from, from + 3 * DAY, DAY)).containsExactly(expected);
      assertThat(vl.lastSelectParams()).containsEntry("offset", plus ? "3h1s" : "-3h1s");
      assertThat(reader.stats().requests()).isEqualTo(plus ? 2 : 3);
    }
  }

  @Test
  void aBucketThatStartsNoWindowUnderEitherSignIsUnreadableNeverACount() throws IOException {
    BoundaryLines lines = new BoundaryLines();
    try (BatchSender sender = backend().open(RunContext.of(lines.streams()))) {
      WindowedPush.sendAccepted(sender, lines.batch());
    }
    vl.queryFaults().failNext(2, 200, "{\"hits\":[{\"fields\":{},\"timestamps\":[\"2021-05-01T05:00:00Z\"],"
        + "\"values\":[4],\"total\":4}]}");
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(lines.streams()))) {
      long from = BoundaryLines.FROM - DAY + 1000;
      assertThatThrownBy(() -> reader.counts(from, from + 3 * DAY, DAY))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("a bucket at 2021-05-01T05:00:00Z that starts none of the windows asked for");
    }
  }

  @Test
  void aLineOnAWindowBoundaryCountsInTheWindowItStarts() throws Exception {
    String body = "{\"_time\":\"2021-05-01T03:01:00Z\",\"_msg\":\"on the boundary\",\"namespace\":\"loadtest\","
        + "\"container\":\"k6-0\"}\n"
        + "{\"_time\":\"2021-05-01T03:00:59.999999999Z\",\"_msg\":\"just before\",\"namespace\":\"loadtest\","
        + "\"container\":\"k6-0\"}\n";
    HttpRequest insert = HttpRequest.newBuilder(backend().insertUri(new AppJsonStreams(2)))
        .header("Content-Type", "application/stream+json").header("AccountID", "12")
        .header("ProjectID", "34").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    assertThat(HttpClient.newHttpClient().send(insert, HttpResponse.BodyHandlers.discarding())
        .statusCode()).isEqualTo(200);
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(new AppJsonStreams(2)))) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * MINUTE, MINUTE))
          .containsExactly(1, 1, 0);
    }
  }

  @Test
  void aRetriedBatchIsCountedTwice() throws IOException {
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS, 10, 1200, MAY_2021_MILLIS, MINUTE, 2);
    try (BatchSender sender = backend().open(RunContext.of(data.dataset().streams()))) {
      data.sendAll(sender);
      WindowedPush.sendAccepted(sender, data.batch(1));
    }
    long[] expected = data.expected();
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(data.dataset().streams()))) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 2 * MINUTE, MINUTE))
          .containsExactly(expected[0], 2 * expected[1]);
      List<Long> ids = reader.sequenceIds(MAY_2021_MILLIS + MINUTE, MAY_2021_MILLIS + 2 * MINUTE, 10_000);
      List<Long> twice = new ArrayList<>(data.ids(1));
      twice.addAll(data.ids(1));
      assertThat(ids).containsExactlyInAnyOrderElementsOf(twice);
    }
  }

  @Test
  void longRangesAreSplitAtTenThousandBuckets() throws IOException {
    AppJsonStreams streams = new AppJsonStreams(1);
    try (BatchSender sender = backend().open(RunContext.of(streams))) {
      for (long second : new long[] {0, 9_999, 10_000, 19_999, 20_000}) {
        WindowedPush.sendAccepted(sender, line(second, MAY_2021_MILLIS + second * 1000));
      }
    }
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(streams))) {
      long[] counts = reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 20_500_000L, 1000);
      assertThat(counts).hasSize(20_500).containsOnly(0, 1);
      assertThat(counts[0] + counts[9_999] + counts[10_000] + counts[19_999] + counts[20_000])
          .isEqualTo(5);
      assertThat(reader.stats().requests()).isEqualTo(3);
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
  void linesWithoutASeqFieldAreIdentifiedByTheirNanosecondOffset() throws IOException {
    AppJsonStreams streams = new AppJsonStreams(1);
    try (BatchSender sender = backend().open(RunContext.of(streams))) {
      WindowedPush.sendAccepted(sender, line(41, MAY_2021_MILLIS + 5));
      WindowedPush.sendAccepted(sender, line(1_000_041, MAY_2021_MILLIS + 6));
    }
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(streams))) {
      // 1,000,041 mod 999,999 = 42: the id within its millisecond.
      assertThat(reader.sequenceIds(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, 10))
          .containsExactlyInAnyOrder(41L, 42L);
    }
  }

  @Test
  void linesLostAfterAcceptanceShowInExactlyTheirWindowAndSequenceIdsListTheRest()
      throws IOException {
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS, 100, 18_000, MAY_2021_MILLIS, MINUTE, 3);
    try (BatchSender sender = backend().open(RunContext.of(data.dataset().streams()))) {
      WindowedPush.sendAccepted(sender, data.batch(0));
      vl.faults().loseFromNext(7);
      WindowedPush.sendAccepted(sender, data.batch(1));
      WindowedPush.sendAccepted(sender, data.batch(2));
    }
    long[] expected = data.expected();
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(data.dataset().streams()))) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * MINUTE, MINUTE))
          .containsExactly(expected[0], expected[1] - 7, expected[2]);
      List<Long> ids = reader.sequenceIds(MAY_2021_MILLIS + MINUTE, MAY_2021_MILLIS + 2 * MINUTE, 10_000);
      Set<Long> stored = new HashSet<>();
      for (VictoriaLogsEmulator.Row r : vl.rows()) {
        stored.add(LineIds.seqField(r.msg()));
      }
      List<Long> complement = new ArrayList<>(data.ids(1));
      complement.retainAll(stored);
      assertThat(data.ids(1).size() - complement.size()).isEqualTo(7);
      assertThat(ids).containsExactlyInAnyOrderElementsOf(complement);
      assertThat(vl.lastSelectParams().get("query")).isEqualTo("{namespace=\"loadtest\"}"
          + " _time:[2021-05-01T03:01:00Z, 2021-05-01T03:02:00Z) | fields _msg, _time");
    }
  }

  @Test
  void aFailedAnswerIsAnIOExceptionNamingTheWindowAndStatus() {
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(new AppJsonStreams(2)))) {
      vl.queryFaults().failNext(1, 500, "cannot execute query: out of memory");
      assertThatThrownBy(() -> reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessage("VictoriaLogs backend 'victorialogs' answered 500 to the hits query over"
              + " [2021-05-01T03:00:00Z, 2021-05-01T03:03:00Z): cannot execute query.");
      vl.queryFaults().garbageNext(1, 200);
      assertThatThrownBy(() -> reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 3 * MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessage("VictoriaLogs backend 'victorialogs''s answer to the hits query over"
              + " [2021-05-01T03:00:00Z, 2021-05-01T03:03:00Z) cannot be read (not JSON).");
      vl.queryFaults().garbageNext(1, 200);
      assertThatThrownBy(() -> reader.sequenceIds(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, 5))
          .isInstanceOf(IOException.class)
          .hasMessage("VictoriaLogs backend 'victorialogs''s answer to the log query over"
              + " [2021-05-01T03:00:00Z, 2021-05-01T03:01:00Z) cannot be read (not JSON).");
    }
  }

  @Test
  void aFailureOfTheSecondPieceFailsTheWholeCount() {
    try (VictoriaLogsCountReader reader = backend().openCounter(RunContext.of(new AppJsonStreams(2)))) {
      vl.queryFaults().delayNext(1, Duration.ZERO).failNext(1, 503, "");
      assertThatThrownBy(() -> reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 20_000_000L, 1000))
          .isInstanceOf(IOException.class)
          .hasMessage("VictoriaLogs backend 'victorialogs' answered 503 to the hits query over"
              + " [2021-05-01T05:46:40Z, 2021-05-01T08:33:20Z).");
    }
  }

  @Test
  void aBackendThatHangsGivesAnIOExceptionAfterTheTimeout() {
    try (VictoriaLogsCountReader reader =
        backend(Duration.ofMillis(500)).openCounter(RunContext.of(new AppJsonStreams(2)))) {
      vl.queryFaults().hangNext(1);
      assertThatThrownBy(() -> reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessage("VictoriaLogs backend 'victorialogs' did not answer the hits query over"
              + " [2021-05-01T03:00:00Z, 2021-05-01T03:01:00Z) within 500 ms.");
    }
  }

  @Test
  void filterUsesSharedStreamLabelsOrANonEmptyFirstLabel() {
    assertThat(VictoriaLogsCountReader.filter(List.of("namespace", "container"), new AppJsonStreams(3), "vl"))
        .isEqualTo("{namespace=\"loadtest\"}");
    assertThat(VictoriaLogsCountReader.filter(List.of("container"), new AppJsonStreams(3), "vl"))
        .isEqualTo("namespace:=\"loadtest\"");
  }
}
