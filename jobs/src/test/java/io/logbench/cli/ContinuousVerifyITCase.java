package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.ledger.LedgerFiles;
import io.logbench.sink.loki.LokiEmulator;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.testing.LoopbackMiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verify --continuous} following a live {@code generate} on a MiniCluster against the Loki
 * and VictoriaLogs emulators (not real servers): both commands run at once on the same run file
 * and run directory, verify reading run.json and the per-backend ledgers while generate writes
 * them.
 */
class ContinuousVerifyITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(4);

  private static final long LINES = 4000;
  private static final long RATE = 500;

  @TempDir Path dir;
  private final LokiEmulator loki = new LokiEmulator();
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator();

  @AfterEach
  void stop() {
    loki.close();
    vl.close();
  }

  private record Outcome(int code, String printed) {}

  private static Outcome main(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Outcome(code, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
  }

  private Path runFile() throws Exception {
    Path config = dir.resolve("run.yaml");
    Files.writeString(config, String.join("\n",
        "name: continuous-it",
        "dataset: {kind: app-json, lines: " + LINES + ", streams: 3}",
        "schedule: {kind: constant, rate: " + RATE + "}",
        "timestamps: now",
        "window: 2s",
        "zone: UTC",
        "parallelism: 1",
        "batch: {lines: 100}",
        "run: {checkpoint_interval: 500ms}",
        // a line lost on purpose keeps generate's end-of-run visibility count waiting its timeout
        "visibility: {timeout: 5s}",
        "backends:",
        "  - {kind: loki, url: '" + loki.url() + "', timeout: 5s}",
        "  - {kind: victorialogs, name: vl, url: '" + vl.url() + "', timeout: 5s}",
        ""));
    return config;
  }

  private record Both(Outcome generate, Outcome verify, boolean ledgerFinalWhenVerifyStarted) {}

  /** Starts generate, waits for its run.json, then runs continuous verify while generate goes on. */
  private Both generateAndVerify(String... verifyArgs) throws Exception {
    Path config = runFile();
    Path runDir = dir.resolve("run");
    CompletableFuture<Outcome> generate = CompletableFuture.supplyAsync(
        () -> main("generate", config.toString(), "--run-dir", runDir.toString()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!Files.exists(runDir.resolve("run.json")) && !generate.isDone()) {
      assertThat(System.nanoTime()).as("run.json appears before the deadline").isLessThan(deadline);
      Thread.sleep(20); // polling a condition, not waiting instead of one
    }
    assertThat(generate.isDone()).as("generate still runs when run.json appears").isFalse();
    boolean finalLedger = Files.exists(runDir.resolve(LedgerFiles.CSV));
    List<String> args = new java.util.ArrayList<>(List.of("verify", config.toString(), "--run-dir",
        runDir.toString(), "--continuous", "--settle", "1s", "--max-wait", "10s", "--recheck", "500ms"));
    args.addAll(List.of(verifyArgs));
    Outcome verify = main(args.toArray(String[]::new));
    return new Both(generate.get(60, TimeUnit.SECONDS), verify, finalLedger);
  }

  private List<String> verdicts(String backend) throws Exception {
    return Files.readAllLines(dir.resolve("run").resolve("verdicts.csv")).stream()
        .filter(l -> l.startsWith(backend + ",")).toList();
  }

  @Test
  void followsALiveRunToEveryWindowOk() throws Exception {
    Both b = generateAndVerify();
    assertThat(b.ledgerFinalWhenVerifyStarted()).as("verify started before the run ended").isFalse();
    assertThat(b.generate().code()).as(b.generate().printed()).isZero();
    assertThat(b.verify().code()).as(b.verify().printed()).isZero();
    assertThat(b.verify().printed()).contains("verdict: every checked window holds what its backend acknowledged.");
    for (String backend : List.of("loki", "vl")) {
      List<String> rows = verdicts(backend);
      // 8 s of lines over 2 s windows not aligned to the run's start: 4 or 5 windows
      assertThat(rows).as(backend).hasSizeBetween(4, 5).allMatch(r -> r.contains(",OK,"));
      long observed = rows.stream().mapToLong(r -> Long.parseLong(r.split(",")[6])).sum();
      assertThat(observed).as(backend).isEqualTo(LINES);
    }
  }

  @Test
  void followsALiveRunAtTwiceTheLedgersWindowToEveryWindowOk() throws Exception {
    Both b = generateAndVerify("--window", "4s");
    assertThat(b.ledgerFinalWhenVerifyStarted()).as("verify started before the run ended").isFalse();
    assertThat(b.generate().code()).as(b.generate().printed()).isZero();
    assertThat(b.verify().code()).as(b.verify().printed()).isZero();
    assertThat(b.verify().printed()).contains(" window(s) of 4s (sums of the ledger's 2s rows) for loki, vl");
    for (String backend : List.of("loki", "vl")) {
      List<String> rows = verdicts(backend);
      // 8 s of lines over 4 s windows not aligned to the run's start: 2 or 3 windows
      assertThat(rows).as(backend).hasSizeBetween(2, 3).allMatch(r -> r.contains(",OK,"));
      long observed = rows.stream().mapToLong(r -> Long.parseLong(r.split(",")[6])).sum();
      assertThat(observed).as(backend).isEqualTo(LINES);
      long acked = rows.stream().mapToLong(r -> Long.parseLong(r.split(",")[5])).sum();
      assertThat(acked).as("%s: the ledger's 2 s rows summed", backend).isEqualTo(LINES);
    }
  }

  @Test
  void namesTheLinesLokiLostWhileVictoriaLogsStaysOk() throws Exception {
    int lose = 7;
    loki.faults().loseFromNext(lose);
    Both b = generateAndVerify();
    assertThat(b.ledgerFinalWhenVerifyStarted()).as("verify started before the run ended").isFalse();
    // Loki answered success for the lost lines: generate sees every line acknowledged
    assertThat(b.generate().code()).as(b.generate().printed()).isZero();
    assertThat(loki.linesLost()).isEqualTo(lose);

    ObjectMapper json = new ObjectMapper();
    Set<Long> stored = new TreeSet<>();
    for (LokiEmulator.Entry e : loki.entries()) {
      stored.add(json.readTree(e.line()).get("seq").asLong());
    }
    Set<Long> lost = LongStream.range(0, LINES).boxed().filter(s -> !stored.contains(s))
        .collect(Collectors.toCollection(TreeSet::new));
    assertThat(lost).hasSize(lose);

    assertThat(b.verify().code()).as(b.verify().printed()).isEqualTo(1);
    assertThat(b.verify().printed())
        .contains("verify: backend loki is missing " + lose + " acknowledged line(s) in ")
        .doesNotContain("backend vl is");
    assertThat(verdicts("vl")).hasSizeBetween(4, 5).allMatch(r -> r.contains(",OK,"));
    List<String> lokiRows = verdicts("loki");
    List<String> missingRows = lokiRows.stream().filter(r -> r.contains(",MISSING,")).toList();
    // the first push's lines lie in the first window, or straddle into the second
    assertThat(missingRows).isNotEmpty().hasSizeLessThanOrEqualTo(2);
    assertThat(lokiRows).allMatch(r -> r.contains(",OK,") || r.contains(",MISSING,"));
    long missing = 0;
    for (String r : missingRows) {
      String[] f = r.split(",", -1);
      long gap = Long.parseLong(f[5]) - Long.parseLong(f[6]);
      assertThat(f[7]).as(r).isEqualTo(gap + " acknowledged line(s) not found");
      missing += gap;
    }
    assertThat(missing).isEqualTo(lose);

    List<String> ids = Files.readAllLines(dir.resolve("run").resolve("missing.csv"));
    assertThat(ids.get(0)).isEqualTo("backend,window_start,kind,seq,count,note");
    Set<Long> named = new TreeSet<>();
    for (String r : ids.subList(1, ids.size())) {
      assertThat(r).startsWith("loki,");
      String[] f = r.split(",", -1);
      assertThat(f[2]).as(r).isEqualTo("missing");
      named.add(Long.parseLong(f[3]));
    }
    assertThat(named).isEqualTo(lost);
  }
}
