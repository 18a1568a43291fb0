package io.logbench.sink.victorialogs;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.sink.BatchSender;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import io.logbench.sink.emulator.WindowedPush;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Runs never mix in VictoriaLogs (against the VictoriaLogsEmulator): every row carries its run's
 * id in the plain field {@code logbench_run}, the streams stay the dataset's, and counts, the
 * drill-down and the pre-flight check tell the runs apart.
 */
class VictoriaLogsRunsTest {

  private static final long MINUTE = 60_000L;
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().retention(Duration.ofDays(36_500));
  private final WindowedPush data =
      new WindowedPush(MAY_2021_MILLIS + 17_000, 40, 283 * 40, MAY_2021_MILLIS, MINUTE, 5);

  @AfterEach
  void stop() {
    vl.close();
  }

  private VictoriaLogsBackend backend() {
    return new VictoriaLogsBackend("victorialogs", URI.create(vl.url()), null, null, null, Duration.ofDays(36_500),
        null, Duration.ofSeconds(5), Duration.ofSeconds(5));
  }

  private RunContext run(String id) {
    return RunContext.of(data.dataset().streams()).withRunId(id);
  }

  /** Sends windows {@code [0, windows)} of the data as run {@code id}. */
  private void push(String id, int windows) {
    try (BatchSender sender = backend().open(run(id))) {
      for (int k = 0; k < windows; k++) {
        WindowedPush.sendAccepted(sender, data.batch(k));
      }
    }
  }

  @Test
  void everyRowCarriesTheRunIdAsAPlainFieldAndTheStreamsStayTheDatasets() {
    push("run-a", 1);
    assertThat(vl.rows()).hasSize((int) data.expected()[0]);
    assertThat(vl.rows()).allSatisfy(r -> {
      assertThat(r.fields()).containsEntry("logbench_run", "run-a");
      assertThat(r.stream()).startsWith("{namespace=\"loadtest\",container=\"k6-").doesNotContain("logbench_run");
    });
    assertThat(vl.lastQuery()).contains("_stream_fields=namespace%2Ccontainer&");
  }

  @Test
  void twoRunsOverTheSameWindowsEachCountOnlyTheirOwnRows() throws IOException {
    push("run-a", 5);
    push("run-b", 2);
    long[] expected = data.expected();
    long from = MAY_2021_MILLIS;
    long to = from + 5 * MINUTE;
    try (VictoriaLogsCountReader a = backend().openCounter(run("run-a"))) {
      assertThat(a.counts(from, to, MINUTE)).containsExactly(expected);
      assertThat(vl.lastSelectParams()).containsEntry("query", "{namespace=\"loadtest\"} logbench_run:=\"run-a\"");
      // the drill-down of a window lists the run's lines once, not the other run's copies
      assertThat(a.sequenceIds(from, from + MINUTE, 10_000)).containsExactlyInAnyOrderElementsOf(data.ids(0));
    }
    try (VictoriaLogsCountReader b = backend().openCounter(run("run-b"))) {
      assertThat(b.counts(from, to, MINUTE)).containsExactly(expected[0], expected[1], 0, 0, 0);
    }
    // without a run id every run's rows count, as before run ids
    try (VictoriaLogsCountReader all = backend().openCounter(RunContext.of(data.dataset().streams()))) {
      assertThat(all.counts(from, to, MINUTE))
          .containsExactly(2 * expected[0], 2 * expected[1], expected[2], expected[3], expected[4]);
      assertThat(all.filter()).isEqualTo("{namespace=\"loadtest\"}");
    }
  }

  @Test
  void theChecksBeforeARunWarnAboutRowsOfOtherRunsInItsTimeRangeOnly() throws IOException {
    push("run-a", 5);
    long lines = LongStream.of(data.expected()).sum();
    long[] span = {MAY_2021_MILLIS + 17_000, MAY_2021_MILLIS + 5 * MINUTE};
    Preflight before = Preflight.of(run("run-b"), span, MINUTE, ZoneOffset.UTC, span[0], System.currentTimeMillis());
    assertThat(backend().preflight(before)).containsExactly(
        "Backend 'victorialogs' already holds " + String.format(Locale.ROOT, "%,d", lines) + " lines in the run's time range"
            + " from other runs; they are not counted as this run's (its lines carry run id run-b and its counts"
            + " filter by it).");
    // one window: only that window's rows
    Preflight oneWindow = Preflight.of(run("run-b"), new long[] {span[0], MAY_2021_MILLIS + MINUTE}, MINUTE,
        ZoneOffset.UTC, span[0], System.currentTimeMillis());
    assertThat(backend().preflight(oneWindow)).singleElement().asString()
        .contains("already holds " + String.format(Locale.ROOT, "%,d", data.expected()[0]) + " lines");
    // a run of the next hour finds nothing
    long later = MAY_2021_MILLIS + 60 * MINUTE;
    assertThat(backend().preflight(Preflight.of(run("run-b"), new long[] {later, later + MINUTE}, MINUTE,
        ZoneOffset.UTC, later, System.currentTimeMillis()))).isEmpty();
    assertThat(vl.rowsStored()).isEqualTo((int) lines);
  }

  @Test
  void aBackendThatDoesNotAnswerIsAWarningNotAFailure() {
    vl.close();
    long[] span = {MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE};
    List<String> warnings = backend().preflight(
        Preflight.of(run("run-b"), span, MINUTE, ZoneOffset.UTC, span[0], System.currentTimeMillis()));
    assertThat(warnings).singleElement().asString()
        .startsWith("Backend 'victorialogs' could not be asked whether it already holds lines in the run's time"
            + " range: ");
  }
}
