package io.logbench.sink.victorialogs;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.count.CountReader;
import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.count.Probes;
import io.logbench.count.VisibilityProbe;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.app.AppJsonStreams;
import io.logbench.http.PrometheusText;
import io.logbench.query.NginxLines;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Footprint;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.SendResult.Kind;
import io.logbench.sink.emulator.TestBatches;
import io.logbench.sink.emulator.WindowedPush;
import io.logbench.testing.BoundaryLines;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every VictoriaLogs behaviour logbench relies on, written once and run on the real VictoriaLogs
 * ({@link VictoriaLogsServerITCase}) and on the {@link VictoriaLogsEmulator} ({@link
 * VictoriaLogsEmulatorContractTest}): jsonline inserts with stream fields and tenancy headers, the
 * count reader's windows at 1m, 1h and 1d in America/Sao_Paulo on boundary lines (whatever the
 * server's sign of {@code offset}), drill-down ids, searches, probes, runs and tenants kept apart,
 * no dedup, rows outside the retention answered 200 and dropped, and the stored size.
 */
abstract class VictoriaLogsContract {

  static final long MINUTE = 60_000L;

  abstract VictoriaLogsTarget target();

  @AfterEach
  void closeTarget() {
    target().close();
  }

  static VictoriaLogsBackend backend(VictoriaLogsTarget.Endpoint at, String projectId, Duration retention) {
    return new VictoriaLogsBackend("victorialogs", URI.create(at.url()), at.accountId(), projectId, null, retention,
        null, Duration.ofSeconds(30), Duration.ofSeconds(60));
  }

  static VictoriaLogsBackend backend(VictoriaLogsTarget.Endpoint at) {
    return backend(at, "7", Duration.ofDays(36_500));
  }

  static SendResult send(VictoriaLogsBackend b, RunContext run, LineBatch batch) {
    try (BatchSender sender = b.open(run)) {
      return sender.send(batch).join();
    }
  }

  @Test
  void jsonlineRowsCountEachMinuteListTheirIdsAndKeepTenantsAndRunsApart() throws Exception {
    VictoriaLogsTarget.Endpoint at = target().endpoint(false);
    WindowedPush data = new WindowedPush(MAY_2021_MILLIS + 17_000, 20, 20 * 250, MAY_2021_MILLIS, MINUTE, 5);
    RunContext run = RunContext.of(data.dataset().streams()).withRunId("run-a");
    VictoriaLogsBackend b = backend(at);
    try (BatchSender sender = b.open(run)) {
      data.sendAll(sender);
    }
    target().settle(at);
    long to = MAY_2021_MILLIS + 5 * MINUTE;
    try (CountReader reader = b.openCounter(run); VisibilityProbe probe = b.openProbe(run)) {
      assertThat(reader.counts(MAY_2021_MILLIS, to, MINUTE)).as(target().describe()).containsExactly(data.expected());
      data.assertProbeCounts(probe, MAY_2021_MILLIS, to, MINUTE, target().describe());
      assertThat(reader.sequenceIds(MAY_2021_MILLIS + 2 * MINUTE, MAY_2021_MILLIS + 3 * MINUTE, 10_000))
          .containsExactlyInAnyOrderElementsOf(data.ids(2));
    }
    try (CountReader otherRun = b.openCounter(run.withRunId("run-b"));
        CountReader otherProject = backend(at, "8", Duration.ofDays(36_500)).openCounter(run);
        CountReader otherAccount = backend(new VictoriaLogsTarget.Endpoint(at.url(), at.accountId() + "0"))
            .openCounter(run)) {
      assertThat(otherRun.counts(MAY_2021_MILLIS, to, MINUTE)).containsOnly(0L);
      assertThat(otherRun.sequenceIds(MAY_2021_MILLIS, to, 10)).isEmpty();
      assertThat(otherProject.counts(MAY_2021_MILLIS, to, MINUTE)).containsOnly(0L);
      assertThat(otherAccount.counts(MAY_2021_MILLIS, to, MINUTE)).containsOnly(0L);
    }
    try (VisibilityProbe otherRun = b.openProbe(run.withRunId("run-b"));
        VisibilityProbe otherAccount = backend(new VictoriaLogsTarget.Endpoint(at.url(), at.accountId() + "0"))
            .openProbe(run)) {
      assertThat(Probes.counts(otherRun, List.of(Probes.sample(data.dataset(), 100, 50)))).containsExactly(0);
      assertThat(Probes.run(otherRun, MAY_2021_MILLIS, to, MINUTE)).isZero();
      assertThat(Probes.counts(otherAccount, List.of(Probes.sample(data.dataset(), 100, 50)))).containsExactly(0);
    }
  }

  @Test
  void linesOnTheBoundariesOfMinutesHoursAndDaysOfSaoPauloCountInTheirWindows() throws IOException {
    VictoriaLogsTarget.Endpoint at = target().endpoint(false);
    BoundaryLines lines = new BoundaryLines();
    RunContext run = RunContext.of(lines.streams()).withRunId("boundaries");
    VictoriaLogsBackend b = backend(at);
    assertThat(send(b, run, lines.batch()).kind()).isEqualTo(Kind.ACCEPTED);
    target().settle(at);
    try (CountReader reader = b.openCounter(run)) {
      lines.assertCountedInTheirWindows(target().describe(), reader);
    }
  }

  @Test
  void nginxLinesAreNamedByTheirSequenceIdsAndSearchedCellByCell() throws IOException {
    VictoriaLogsTarget.Endpoint at = target().endpoint(false);
    NginxLines lines = new NginxLines("2021-05-01T00:59:50-03:00", 3_000);
    RunContext run = lines.run("nginx-1");
    VictoriaLogsBackend b = backend(at);
    try (BatchSender sender = b.open(run)) {
      lines.sendAll(sender);
    }
    target().settle(at);
    try (CountReader reader = b.openCounter(run); VictoriaLogsSearch search = b.openSearch(run)) {
      lines.assertIdsAndSearches(target().describe(), reader, search);
    }
  }

  @Test
  void aBatchSentTwiceIsStoredTwice() throws IOException {
    VictoriaLogsTarget.Endpoint at = target().endpoint(false);
    LineBatch batch = TestBatches.batch(0, 50, MAY_2021_MILLIS, 7, 5);
    RunContext run = RunContext.of(new AppJsonStreams(5)).withRunId("twice");
    VictoriaLogsBackend b = backend(at);
    assertThat(send(b, run, batch).kind()).isEqualTo(Kind.ACCEPTED);
    assertThat(send(b, run, batch).kind()).isEqualTo(Kind.ACCEPTED);
    target().settle(at);
    try (CountReader reader = b.openCounter(run)) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, MINUTE)).as(target().describe())
          .containsExactly(100L);
      List<Long> ids = reader.sequenceIds(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, 1_000);
      assertThat(ids).hasSize(100).filteredOn(id -> id == 7L).hasSize(2);
    }
  }

  @Test
  void rowsOlderThanTheRetentionOrFarAheadAreAnswered200AndDropped() throws IOException {
    VictoriaLogsTarget.Endpoint at = target().endpoint(true);
    RunContext run = RunContext.of(new AppJsonStreams(3)).withRunId("retention");
    VictoriaLogsBackend b = backend(at, null, VictoriaLogsBackend.DEFAULT_RETENTION);
    long now = System.currentTimeMillis();
    long fresh = now - now % MINUTE - 10 * MINUTE;
    long ahead = now - now % MINUTE + Duration.ofDays(3).toMillis();
    SendResult old = send(b, run, TestBatches.batch(0, 30, MAY_2021_MILLIS, 10, 3));
    SendResult late = send(b, run, TestBatches.batch(30, 20, ahead, 10, 3));
    SendResult kept = send(b, run, TestBatches.batch(50, 10, fresh, 10, 3));
    assertThat(List.of(old.kind(), late.kind(), kept.kind())).as(target().describe()).containsOnly(Kind.ACCEPTED);
    assertThat(List.of(old.status(), late.status(), kept.status())).containsOnly(200);
    target().settle(at);
    try (CountReader reader = b.openCounter(run)) {
      assertThat(reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, MINUTE)).containsExactly(0L);
      assertThat(reader.counts(ahead, ahead + MINUTE, MINUTE)).containsExactly(0L);
      assertThat(reader.counts(fresh, fresh + MINUTE, MINUTE)).containsExactly(10L);
    }
    String metrics = target().metrics(at);
    assertThat(PrometheusText.sum(metrics, "vl_rows_dropped_total", "reason=\"too_small_timestamp\"")).hasValue(30);
    assertThat(PrometheusText.sum(metrics, "vl_rows_dropped_total", "reason=\"too_big_timestamp\"")).hasValue(20);
    // the plan warns before such a run
    assertThat(b.warnings(MAY_2021_MILLIS, now)).singleElement().asString()
        .contains("older than the retention of 7d; VictoriaLogs answers 200 but silently drops rows");
  }

  @Test
  void theStoredSizeIsTheServersOwnFigureForItsDataOnDisk() throws IOException {
    VictoriaLogsTarget.Endpoint at = target().endpoint(false);
    NginxLines lines = new NginxLines("2021-05-01T00:00:00-03:00", 20_000);
    RunContext run = lines.run("footprint");
    VictoriaLogsBackend b = backend(at);
    try (BatchSender sender = b.open(run)) {
      lines.sendAll(sender);
    }
    target().settle(at);
    Footprint f = b.footprint(run).orElseThrow();
    assertThat(f.complete()).isTrue();
    double metric = PrometheusText.sum(target().metrics(at), VictoriaLogsBackend.DATA_SIZE_METRIC).orElseThrow();
    assertThat((double) f.bytes()).isEqualTo(metric);
    // the whole server's data: these lines, compressed, and any other test's
    assertThat(f.bytes()).isGreaterThan(20_000L);
    OptionalLong files = target().dataFileBytes(at);
    if (files.isPresent()) {
      // read again: parts written to disk and merged meanwhile change the figure a little
      Footprint now = b.footprint(run).orElseThrow();
      assertThat((double) now.bytes()).as("the footprint beside the data files of " + target().describe())
          .isCloseTo(files.getAsLong(), org.assertj.core.data.Percentage.withPercentage(5));
    }
  }
}
