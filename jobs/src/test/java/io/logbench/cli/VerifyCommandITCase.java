package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.job.FlinkEnvironments;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.emulator.WindowedPush;
import io.logbench.sink.loki.LokiEmulator;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.testing.LoopbackMiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verify} end to end on a MiniCluster against the Loki and VictoriaLogs emulators (not
 * real servers): lines pushed with the senders, the ledger written by the test, loss injected in
 * one window of one backend; the verify job names the backend, window, count and ids.
 */
class VerifyCommandITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      LoopbackMiniCluster.extension(4);

  private static final long T0 = 1_619_838_000_000L; // 2021-05-01T03:00:00Z
  private static final long MINUTE = 60_000L;

  @TempDir Path dir;
  private final LokiEmulator loki = new LokiEmulator();
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().retention(Duration.ofDays(36_500));

  @AfterEach
  void stop() {
    loki.close();
    vl.close();
  }

  private record Run(Path config, Path runDir, RunPlan plan) {}

  private Run run() throws Exception {
    Path config = dir.resolve("run.yaml");
    Files.writeString(config, String.join("\n",
        "name: verify-it",
        "dataset: {kind: app-json, lines: 12000, streams: 5, start: \"2021-05-01T03:00:00Z\", rate: 100}",
        "schedule: {kind: max}",
        "timestamps: original",
        "window: 1m",
        "zone: UTC",
        "backends:",
        "  - {kind: loki, url: '" + loki.url() + "', timeout: 5s}",
        "  - {kind: victorialogs, name: vl, url: '" + vl.url() + "', retention: 36500d, timeout: 5s}",
        "  - {kind: discard}",
        ""));
    RunConfig c = ConfigLoader.load(config);
    return new Run(config, dir.resolve("run"), RunPlan.of(c));
  }

  private static LineBatch window(RunPlan plan, ExpectedCounts expected, int k) {
    long first = expected.countBefore(T0 + k * MINUTE);
    long end = expected.countBefore(T0 + (k + 1) * MINUTE);
    LineBatch b = new LineBatch();
    b.reset(k, first);
    LineCursor cursor = plan.dataset().cursor(first);
    for (long i = first; i < end; i++) {
      cursor.next(b);
    }
    return b;
  }

  private int verify(Run r, StringBuilder printed, String... extra) {
    List<String> args = new ArrayList<>(List.of("verify", r.config().toString(), "--run-dir", r.runDir().toString()));
    args.addAll(List.of(extra));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    printed.append(out.toString(StandardCharsets.UTF_8)).append(err.toString(StandardCharsets.UTF_8));
    return code;
  }

  @Test
  void namesTheBackendWindowCountAndIdsOfLostLinesAndPassesACleanBackend() throws Exception {
    Run r = run();
    ExpectedCounts expected = r.plan().expectedCounts(0);
    RunConfig c = r.plan().config();
    try (BatchSender l = c.backends().get(0).spec().open(RunContext.of(r.plan().dataset().streams()));
        BatchSender v = c.backends().get(1).spec().open(RunContext.of(r.plan().dataset().streams()))) {
      for (int k = 0; k < 2; k++) {
        WindowedPush.sendAccepted(l, window(r.plan(), expected, k));
        if (k == 1) {
          vl.faults().loseFromNext(3);
        }
        WindowedPush.sendAccepted(v, window(r.plan(), expected, k));
      }
    }
    List<LedgerEntry> rows = new ArrayList<>();
    for (String b : List.of("loki", "vl")) {
      for (int k = 0; k < 2; k++) {
        long s = T0 + k * MINUTE;
        rows.add(new LedgerEntry(b, s, s + MINUTE, 6000, 6000, 6000, Map.of()));
      }
    }
    LedgerFiles.writeCsv(r.runDir(), rows, java.time.ZoneOffset.UTC);

    StringBuilder printed = new StringBuilder();
    int code = verify(r, printed, "--drill", "5");
    assertThat(code).as(printed.toString()).isEqualTo(1);
    assertThat(printed).contains("verify: backend vl is missing 3 acknowledged line(s) in 1 window(s); see missing.csv.");
    assertThat(printed).contains("discard          skipped: a discard backend keeps nothing to count");
    assertThat(printed.toString()).doesNotContain("backend loki is");

    List<String> verdicts = Files.readAllLines(r.runDir().resolve("verdicts.csv"));
    assertThat(verdicts).containsExactly(
        "backend,window_start,window_end,status,expected,acked,observed,detail",
        "loki,2021-05-01T03:00:00Z,2021-05-01T03:01:00Z,OK,6000,6000,6000,",
        "loki,2021-05-01T03:01:00Z,2021-05-01T03:02:00Z,OK,6000,6000,6000,",
        "vl,2021-05-01T03:00:00Z,2021-05-01T03:01:00Z,OK,6000,6000,6000,",
        "vl,2021-05-01T03:01:00Z,2021-05-01T03:02:00Z,MISSING,6000,6000,5997,3 acknowledged line(s) not found");
    List<String> missing = Files.readAllLines(r.runDir().resolve("missing.csv"));
    assertThat(missing).hasSize(4);
    assertThat(missing.get(0)).isEqualTo("backend,window_start,kind,seq,count,note");
    for (String row : missing.subList(1, 4)) {
      assertThat(row).startsWith("vl,2021-05-01T03:01:00Z,missing,");
      long id = Long.parseLong(row.split(",")[3]);
      assertThat(id).isBetween(6000L, 11_999L);
    }
    assertThat(Files.readString(r.runDir().resolve("verify-summary.txt"))).contains("verdict: FAILED");
  }

  @Test
  void aCleanRunExitsZeroAndAnUnansweringBackendExitsOneWithoutOk() throws Exception {
    Run r = run();
    ExpectedCounts expected = r.plan().expectedCounts(0);
    RunConfig c = r.plan().config();
    try (BatchSender l = c.backends().get(0).spec().open(RunContext.of(r.plan().dataset().streams()));
        BatchSender v = c.backends().get(1).spec().open(RunContext.of(r.plan().dataset().streams()))) {
      for (int k = 0; k < 2; k++) {
        WindowedPush.sendAccepted(l, window(r.plan(), expected, k));
        WindowedPush.sendAccepted(v, window(r.plan(), expected, k));
      }
    }
    List<LedgerEntry> rows = new ArrayList<>();
    for (String b : List.of("loki", "vl")) {
      for (int k = 0; k < 2; k++) {
        long s = T0 + k * MINUTE;
        rows.add(new LedgerEntry(b, s, s + MINUTE, 6000, 6000, 6000, Map.of()));
      }
    }
    LedgerFiles.writeCsv(r.runDir(), rows, java.time.ZoneOffset.UTC);
    StringBuilder printed = new StringBuilder();
    assertThat(verify(r, printed)).as(printed.toString()).isZero();
    assertThat(printed).contains("verdict: every checked window holds what its backend acknowledged.");

    loki.close();
    printed.setLength(0);
    int code = verify(r, printed, "--max-wait", "1s", "--recheck", "200ms");
    assertThat(code).as(printed.toString()).isEqualTo(1);
    assertThat(printed).contains("verify: backend loki did not answer (or never settled) for 2 window(s) before the"
        + " deadline");
    assertThat(Files.readAllLines(r.runDir().resolve("verdicts.csv")))
        .filteredOn(l -> l.startsWith("loki,")).allMatch(l -> l.contains(",PENDING,"));
  }

  @Test
  void noLedgerIsAConfigError() throws Exception {
    Run r = run();
    StringBuilder printed = new StringBuilder();
    assertThat(verify(r, printed)).isEqualTo(2);
    assertThat(printed).contains("No ledger in");
  }
}
