package io.logbench.sink.splunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.count.CountReader;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.Specs;
import io.logbench.sink.WindowGrid;
import io.logbench.sink.emulator.TestBatches;
import io.logbench.sink.internal.FixedStreams;
import io.logbench.sink.internal.SilentServer;
import io.logbench.testing.BoundaryLines;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SplunkCountReader} against the Splunk HEC emulator (not Splunk): events sent with {@link
 * SplunkSender}, counted back with tstats export searches.
 */
class SplunkCountReaderTest {

  private static final String TOKEN = "11111111-2222-3333-4444-555555555555";
  private static final String PASSWORD = "s3cret-pw";
  /** 2021-05-01 00:00 America/Sao_Paulo. */
  private static final long T0 = TestBatches.MAY_2021_MILLIS;
  private static final long MINUTE = 60_000;
  private static final FixedStreams STREAMS =
      new FixedStreams(Map.of("job", "nginx", "status", "200"), Map.of("job", "api", "status", "500"));

  private final SplunkHecEmulator hec = SplunkHecEmulator.start(TOKEN).searchCredentials("counter", PASSWORD);
  /** Times of the events sent, by seq. */
  private final List<Long> sentMillis = new ArrayList<>();
  private final List<Long> sentSeqs = new ArrayList<>();

  @AfterEach
  void stop() {
    hec.close();
  }

  /** Sends 1,000 events from T0 - 30 s, one every 700 ms (about 12 minutes), in batches of 100. */
  private void send(int loseFromBatch, int lose) throws Exception {
    try (SplunkSender sender =
        SplunkSender.builder().url(hec.url()).token(TOKEN).streams(STREAMS).index("logbench").build()) {
      for (int b = 0; b < 10; b++) {
        LineBatch batch = TestBatches.batch(b * 100L, 100, T0 - 30_000 + b * 70_000L, 700, 2);
        if (b == loseFromBatch) {
          hec.loseNext(lose);
        }
        SendResult r = sender.send(batch).get(30, TimeUnit.SECONDS);
        assertThat(r.kind()).as(r.detail()).isEqualTo(SendResult.Kind.ACCEPTED);
        for (int k = 0; k < batch.count(); k++) {
          if (b == loseFromBatch && k < lose) {
            continue;
          }
          sentMillis.add(batch.timestampMillis(k));
          sentSeqs.add(batch.seq(k));
        }
      }
    }
  }

  private SplunkCountReader.Builder reader() {
    return SplunkCountReader.builder().url(hec.url()).index("logbench").credentials("counter", PASSWORD);
  }

  private long[] stored(long from, long to, long size) {
    WindowGrid grid = new WindowGrid(from, size);
    long[] out = new long[(int) ((to - from) / size)];
    for (long t : sentMillis) {
      if (t >= from && t < to) {
        out[(int) ((grid.windowStart(t) - from) / size)]++;
      }
    }
    return out;
  }

  @Test
  void countsPerMinuteEqualTheEventsSentWithEmptyWindowsAsZero() throws Exception {
    send(-1, 0);
    long from = T0 - 3 * MINUTE;
    long to = T0 + 15 * MINUTE;
    try (CountReader reader = reader().build()) {
      long[] counts = reader.counts(from, to, MINUTE);
      assertThat(counts).containsExactly(stored(from, to, MINUTE));
      assertThat(counts[0]).isZero();
      assertThat(counts[1]).isZero();
      assertThat(counts[17]).isZero();
      assertThat(LongStream.of(counts).sum()).isEqualTo(1_000);
      assertThat(reader.stats().requests()).isEqualTo(1);
      assertThat(hec.searches()).isEqualTo(1);
    }
  }

  @Test
  void longRangesAreSplitIntoSearchesOfAtMostMaxBuckets() throws Exception {
    send(-1, 0);
    long from = T0 - 3 * MINUTE;
    long to = T0 + 15 * MINUTE;
    try (CountReader reader = reader().maxBuckets(4).build()) {
      assertThat(reader.counts(from, to, MINUTE)).containsExactly(stored(from, to, MINUTE));
      assertThat(reader.stats().requests()).as("18 windows, 4 per search").isEqualTo(5);
    }
  }

  @Test
  void windowsOffTheEpochGridAreAddedUpFromFinerSpans() throws Exception {
    send(-1, 0);
    // 60 s windows from T0 + 15 s: 15 s spans, 4 per window; 10 spans per search = 2 windows
    long from = T0 - MINUTE + 15_000;
    long to = from + 14 * MINUTE;
    try (CountReader reader = reader().maxBuckets(10).build()) {
      assertThat(reader.counts(from, to, MINUTE)).containsExactly(stored(from, to, MINUTE));
      assertThat(reader.stats().requests()).isEqualTo(7);
    }
  }

  @Test
  void minutesHoursAndDaysOfSaoPauloCountEveryBoundaryLineInItsWindow() throws Exception {
    BoundaryLines lines = new BoundaryLines();
    try (SplunkSender sender =
        SplunkSender.builder().url(hec.url()).token(TOKEN).streams(lines.streams()).index("logbench").build()) {
      SendResult r = sender.send(lines.batch()).get(30, TimeUnit.SECONDS);
      assertThat(r.kind()).as(r.detail()).isEqualTo(SendResult.Kind.ACCEPTED);
    }
    for (Duration size : BoundaryLines.SIZES) {
      try (CountReader reader = reader().build()) {
        assertThat(reader.counts(BoundaryLines.FROM, BoundaryLines.TO, size.toMillis())).as("%s windows", size)
            .containsExactly(lines.expected(size.toMillis()));
      }
    }
  }

  @Test
  void eventsLostAfterSuccessShowAsFewerInExactlyTheirWindowAndInTheDrillDown() throws Exception {
    // batch 3 starts at T0 + 180 s: its first 4 events (T0+180.0 .. T0+182.1) are lost
    send(3, 4);
    assertThat(hec.lostCount()).isEqualTo(4);
    long from = T0 - MINUTE;
    long to = T0 + 12 * MINUTE;
    try (CountReader reader = reader().build()) {
      long[] counts = reader.counts(from, to, MINUTE);
      assertThat(counts).containsExactly(stored(from, to, MINUTE));
      long[] withoutLoss = stored(from, to, MINUTE);
      withoutLoss[4] += 4;
      assertThat(LongStream.of(withoutLoss).sum()).isEqualTo(1_000);
      List<Long> inWindow = new ArrayList<>();
      for (int i = 0; i < sentSeqs.size(); i++) {
        if (sentMillis.get(i) >= T0 + 3 * MINUTE && sentMillis.get(i) < T0 + 4 * MINUTE) {
          inWindow.add(sentSeqs.get(i));
        }
      }
      List<Long> listed = reader.sequenceIds(T0 + 3 * MINUTE, T0 + 4 * MINUTE, 1_000);
      assertThat(listed).containsExactlyElementsOf(inWindow).doesNotContain(300L, 301L, 302L, 303L);
      assertThat(reader.sequenceIds(T0 + 3 * MINUTE, T0 + 4 * MINUTE, 3)).containsExactlyElementsOf(inWindow.subList(0, 3));
    }
  }

  /**
   * A line at the last nanosecond of a window (seq 999,998 has the largest offset in its
   * millisecond, 999,999 ns) is counted in that window, and the line 1 ns into the next window in
   * the next: the sender truncates the time to the microsecond, and the emulator keeps
   * microseconds by rounding, as a Splunk reading nine digits might; a sender sending nine digits
   * would see the first line counted in the next window.
   */
  @Test
  void aLineAtTheLastNanosecondOfAWindowIsCountedInThatWindow() throws Exception {
    long end = T0 + MINUTE;
    LineBatch batch = io.logbench.sink.internal.TestBatches.of(0, 999_998, end - 1, new int[] {0}, "last", "next");
    assertThat(batch.timestampNanos(0)).isEqualTo(end * 1_000_000 - 1);
    assertThat(batch.timestampNanos(1)).isEqualTo(end * 1_000_000 + 1);
    try (SplunkSender sender =
        SplunkSender.builder().url(hec.url()).token(TOKEN).streams(STREAMS).index("logbench").build()) {
      assertThat(sender.send(batch).get(30, TimeUnit.SECONDS).kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    }
    try (CountReader reader = reader().build()) {
      assertThat(reader.counts(T0, T0 + 2 * MINUTE, MINUTE)).containsExactly(1, 1);
      assertThat(reader.sequenceIds(T0, end, 10)).containsExactly(999_998L);
      assertThat(reader.sequenceIds(end, end + MINUTE, 10)).containsExactly(999_999L);
    }
  }

  /**
   * A search answered after 1 s is a count when {@code query_timeout} allows it, though the push
   * {@code timeout} is 200 ms; with {@code query_timeout} 300 ms it is an error naming it.
   */
  @Test
  void aCountSearchHasQueryTimeoutNotThePushTimeout(@TempDir Path tmp) throws Exception {
    Path password = tmp.resolve("search-password");
    Files.writeString(password, PASSWORD);
    String common = "kind: splunk\nurl: " + hec.url() + "\ntoken_env: HEC_TOKEN\nindex: logbench\nsearch_url: "
        + hec.url() + "\nsearch_user: counter\nsearch_password_file: " + password + "\n";
    send(-1, 0);
    hec.delayNextSearches(1, Duration.ofSeconds(1));
    try (CountReader reader = block(common + "timeout: 200ms\nquery_timeout: 10s\n").openCounter(RunContext.of(STREAMS))) {
      assertThat(reader.counts(T0 - MINUTE, T0 + 12 * MINUTE, MINUTE)).containsExactly(stored(T0 - MINUTE, T0 + 12 * MINUTE, MINUTE));
      assertThat(reader.stats().nanos()).as("the answer took longer than timeout").isGreaterThan(200_000_000L);
    }
    hec.delayNextSearches(1, Duration.ofSeconds(1));
    try (CountReader reader = block(common + "timeout: 10s\nquery_timeout: 300ms\n").openCounter(RunContext.of(STREAMS))) {
      assertThatThrownBy(() -> reader.counts(T0, T0 + MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessageEndingWith(" within 300 ms.");
    }
  }

  @Test
  void subSecondWindowsAreRefused() throws Exception {
    try (CountReader reader = reader().build()) {
      assertThatThrownBy(() -> reader.counts(T0, T0 + 3_000, 1_500))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Splunk counts whole seconds: a window of 1500 ms is not a whole number of seconds.");
      assertThatThrownBy(() -> reader.counts(T0 + 500, T0 + 2_500, 1_000))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Splunk counts whole seconds: the windows start at " + (T0 + 500) + " ms, not on a whole second.");
    }
    assertThat(hec.searches()).isZero();
  }

  @Test
  void refusedSearchCredentialsAreAnIOExceptionWithoutThePassword() {
    try (CountReader reader =
        SplunkCountReader.builder().url(hec.url()).index("logbench").credentials("counter", "wrong-pw").build()) {
      assertThatThrownBy(() -> reader.counts(T0, T0 + MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessage("Splunk search at " + hec.url() + " refused the search credentials of user counter (401);"
              + " check search_user and search_password_env or search_password_file.")
          .hasMessageNotContaining("wrong-pw");
      assertThat(reader.toString()).doesNotContain("wrong-pw").doesNotContain("Basic");
    }
  }

  @Test
  void aSearchThatFailsHangsOrFindsNoServerIsAnIOExceptionNeverCounts() {
    hec.failNextSearches(1, 503).hangNextSearches(1);
    try (CountReader reader = reader().requestTimeout(Duration.ofMillis(300)).build()) {
      assertThatThrownBy(() -> reader.counts(T0, T0 + MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Splunk search at " + hec.url() + " answered the count search for [" + T0 + ", "
              + (T0 + MINUTE) + ") with 503: ");
      assertThatThrownBy(() -> reader.counts(T0, T0 + MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessage("Splunk search at " + hec.url() + " did not answer the count search for [" + T0 + ", "
              + (T0 + MINUTE) + ") within 300 ms.");
    }
    String stopped = SilentServer.stoppedUrl();
    try (CountReader reader = SplunkCountReader.builder().url(stopped).credentials("counter", PASSWORD).build()) {
      assertThatThrownBy(() -> reader.counts(T0, T0 + MINUTE, MINUTE))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("could not be reached");
    }
  }

  @Test
  void aBackendBlockOpensACounterWithItsSearchSettings(@TempDir Path tmp) throws Exception {
    Path password = tmp.resolve("search-password");
    Files.writeString(password, PASSWORD + "\n");
    SplunkBackend backend =
        block("kind: splunk\nurl: " + hec.url() + "\ntoken_env: HEC_TOKEN\nindex: logbench\nsearch_url: " + hec.url()
            + "\nsearch_user: counter\nsearch_password_file: " + password + "\n");
    send(-1, 0);
    try (CountReader reader = backend.openCounter(RunContext.of(STREAMS))) {
      assertThat(LongStream.of(reader.counts(T0 - MINUTE, T0 + 12 * MINUTE, MINUTE)).sum()).isEqualTo(1_000);
    }
    assertThat(backend.toString()).doesNotContain(PASSWORD);

    SplunkBackend defaults = block("kind: splunk\nurl: https://splunk.example:8088/\ntoken_env: HEC_TOKEN\n");
    assertThat(defaults.searchUrl()).isEqualTo("https://splunk.example:8089");
    assertThatThrownBy(() -> defaults.openCounter(RunContext.of(STREAMS)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("The splunk backend splunk needs search_user and search_password_env or"
            + " search_password_file to count its events back.");
    // generate's visibility polls are skipped, with the reason, rather than failing the run
    assertThat(defaults.countUnavailable()).isEqualTo("the splunk backend has no search_user and"
        + " search_password_env or search_password_file to count with");
    assertThat(io.logbench.visibility.Visibility.skipReason(defaults, io.logbench.sink.VisibilitySettings.defaults()))
        .isEqualTo(defaults.countUnavailable());
    assertThat(backend.countUnavailable()).isNull();
    assertThatThrownBy(() -> block("kind: splunk\nurl: http://h:8088\ntoken_env: T\nsearch_user: u\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("backends[0].search_password_env: missing; expected search_password_env or search_password_file, since search_user is set.");
  }

  private static SplunkBackend block(String yaml) throws Exception {
    return Specs.parse(SplunkBackend.TYPE, new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(yaml), "backends[0]"));
  }
}
