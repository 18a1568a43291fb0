package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunPlan;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.emulator.WindowedPush;
import io.logbench.sink.splunk.SplunkHecEmulator;
import io.logbench.testing.LoopbackMiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verify} of a Splunk backend on a MiniCluster against the Splunk HEC emulator (not
 * Splunk): lines pushed with the sender, the ledger written by the test, events lost after an
 * accepted request; the tstats count search finds the window and the export search the ids.
 */
class SplunkVerifyITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(4);

  private static final String TOKEN = "11111111-2222-3333-4444-555555555555";
  private static final String PASSWORD = "s3cret-pw";
  private static final long T0 = 1_619_838_000_000L; // 2021-05-01T03:00:00Z
  private static final long WINDOW = 10_000L;
  private static final int WINDOWS = 6;
  private static final long LINES = 600;

  @TempDir Path dir;
  private final SplunkHecEmulator hec = SplunkHecEmulator.start(TOKEN).searchCredentials("counter", PASSWORD);

  @AfterEach
  void stop() {
    hec.close();
  }

  private RunPlan plan() throws Exception {
    Files.writeString(dir.resolve("hec.token"), TOKEN);
    Files.writeString(dir.resolve("search.password"), PASSWORD);
    Path config = dir.resolve("run.yaml");
    // 10 lines a second of dataset time: 100 lines in each 10 s window
    Files.writeString(config, String.join("\n",
        "name: splunk-verify-it",
        "dataset: {kind: app-json, lines: " + LINES + ", streams: 3, start: \"2021-05-01T03:00:00Z\", rate: 10}",
        "schedule: {kind: max}",
        "timestamps: original",
        "window: 10s",
        "zone: UTC",
        "backends:",
        "  - kind: splunk",
        "    url: '" + hec.url() + "'",
        "    token_file: '" + dir.resolve("hec.token") + "'",
        "    index: logbench",
        "    search_url: '" + hec.url() + "'",
        "    search_user: counter",
        "    search_password_file: '" + dir.resolve("search.password") + "'",
        "    timeout: 5s",
        ""));
    return RunPlan.of(ConfigLoader.load(config));
  }

  private static LineBatch window(RunPlan plan, ExpectedCounts expected, int k) {
    long first = expected.countBefore(T0 + k * WINDOW);
    long end = expected.countBefore(T0 + (k + 1) * WINDOW);
    LineBatch b = new LineBatch();
    b.reset(k, first);
    LineCursor cursor = plan.dataset().cursor(first);
    for (long i = first; i < end; i++) {
      cursor.next(b);
    }
    return b;
  }

  /** Pushes every window, losing {@code lose} events of window {@code loseIn}, and writes the ledger. */
  private Path push(RunPlan plan, int loseIn, int lose) throws Exception {
    ExpectedCounts expected = plan.expectedCounts(0);
    List<LedgerEntry> rows = new ArrayList<>();
    try (BatchSender s = plan.config().backends().get(0).spec().open(RunContext.of(plan.dataset().streams()))) {
      for (int k = 0; k < WINDOWS; k++) {
        LineBatch b = window(plan, expected, k);
        assertThat(b.count()).isEqualTo(100);
        if (k == loseIn) {
          hec.loseNext(lose);
        }
        WindowedPush.sendAccepted(s, b);
        long start = T0 + k * WINDOW;
        rows.add(new LedgerEntry("splunk", start, start + WINDOW, 100, 100, 100, Map.of()));
      }
    }
    Path runDir = dir.resolve("run");
    LedgerFiles.writeCsv(runDir, rows, ZoneOffset.UTC);
    return runDir;
  }

  private int verify(Path runDir, StringBuilder printed) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"verify", dir.resolve("run.yaml").toString(), "--run-dir", runDir.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    printed.append(out.toString(StandardCharsets.UTF_8)).append(err.toString(StandardCharsets.UTF_8));
    return code;
  }

  @Test
  void lostEventsAreMissingInTheirWindowWithTheirIds() throws Exception {
    Path runDir = push(plan(), 3, 5);
    assertThat(hec.lostCount()).isEqualTo(5);
    ObjectMapper json = new ObjectMapper();
    Set<Long> stored = new TreeSet<>();
    for (SplunkHecEmulator.StoredEvent e : hec.events()) {
      stored.add(json.readTree(e.event()).get("seq").asLong());
    }
    Set<Long> lost = LongStream.range(0, LINES).boxed().filter(s -> !stored.contains(s))
        .collect(Collectors.toCollection(TreeSet::new));
    assertThat(lost).hasSize(5).allMatch(s -> s >= 300 && s < 400);

    StringBuilder printed = new StringBuilder();
    int code = verify(runDir, printed);
    assertThat(code).as(printed.toString()).isEqualTo(1);
    assertThat(printed).contains("verify: backend splunk is missing 5 acknowledged line(s) in 1 window(s); see missing.csv.");
    assertThat(Files.readString(dir.resolve("run.yaml"))).contains("search_password_file");
    assertThat(printed.toString()).doesNotContain(PASSWORD).doesNotContain(TOKEN);

    List<String> verdicts = Files.readAllLines(runDir.resolve("verdicts.csv"));
    assertThat(verdicts).containsExactly(
        "backend,window_start,window_end,status,expected,acked,observed,detail",
        "splunk,2021-05-01T03:00:00Z,2021-05-01T03:00:10Z,OK,100,100,100,",
        "splunk,2021-05-01T03:00:10Z,2021-05-01T03:00:20Z,OK,100,100,100,",
        "splunk,2021-05-01T03:00:20Z,2021-05-01T03:00:30Z,OK,100,100,100,",
        "splunk,2021-05-01T03:00:30Z,2021-05-01T03:00:40Z,MISSING,100,100,95,5 acknowledged line(s) not found",
        "splunk,2021-05-01T03:00:40Z,2021-05-01T03:00:50Z,OK,100,100,100,",
        "splunk,2021-05-01T03:00:50Z,2021-05-01T03:01:00Z,OK,100,100,100,");
    List<String> missing = Files.readAllLines(runDir.resolve("missing.csv"));
    assertThat(missing.get(0)).isEqualTo("backend,window_start,kind,seq,count,note");
    Set<Long> named = new TreeSet<>();
    for (String r : missing.subList(1, missing.size())) {
      assertThat(r).startsWith("splunk,2021-05-01T03:00:30Z,missing,");
      named.add(Long.parseLong(r.split(",")[3]));
    }
    assertThat(named).isEqualTo(lost);
  }

  @Test
  void everyEventKeptExitsZero() throws Exception {
    Path runDir = push(plan(), -1, 0);
    assertThat(hec.events()).hasSize((int) LINES);
    StringBuilder printed = new StringBuilder();
    assertThat(verify(runDir, printed)).as(printed.toString()).isZero();
    assertThat(printed).contains("verdict: every checked window holds what its backend acknowledged.");
    List<String> verdicts = Files.readAllLines(runDir.resolve("verdicts.csv"));
    assertThat(verdicts).hasSize(WINDOWS + 1);
    assertThat(verdicts.subList(1, verdicts.size())).allMatch(l -> l.startsWith("splunk,") && l.endsWith(",OK,100,100,100,"));
  }
}
