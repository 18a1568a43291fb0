package io.logbench.job;

import io.logbench.testing.LoopbackMiniCluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.cli.Main;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.sink.loki.LokiEmulator;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 000's ladder, shortened, through {@code generate} on a MiniCluster against the Loki and
 * VictoriaLogs emulators (not real servers): the shipped run file with its steps, ramps, holds,
 * threshold delay and URLs replaced, so its dataset, streams, batch size and backend blocks are the
 * ones under test.
 */
class LadderEmulatorsITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      LoopbackMiniCluster.extension(4);

  private static final Path SHIPPED = Path.of("..", "config", "seed000-ladder.yaml");
  private static final long[] TARGETS = {400, 800, 1600};
  private static final double HOLD_SECONDS = 3.0;
  // ramps from 0 to 400, 400 to 800 and 800 to 1,600 over 1 s each, and 3 s holds
  private static final long LINES = 200 + 1200 + 600 + 2400 + 1200 + 4800;
  // step 0 and step 1's ramp are lines [0, 2000): batches 0 to 19 of 100 lines
  private static final int BATCHES_BEFORE_STEP1_HOLD = 20;
  private static final String STEPS_HEADER =
      "backend,step,target_rate,achieved_rate,acked_in_hold,hold_seconds,batches,p50_ms,p95_ms,p99_ms,max_ms,failures";

  @TempDir Path dir;
  private final LokiEmulator loki = new LokiEmulator();
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator();

  @AfterEach
  void stop() {
    loki.close();
    vl.close();
  }

  private record Outcome(int code, String out, String err, Path runDir) {
    String printed() {
      return out + err;
    }
  }

  private static String replace(String text, String from, String to) {
    assertThat(text).as("the shipped seed000-ladder.yaml").contains(from);
    return text.replace(from, to);
  }

  private Path shortLadder() throws Exception {
    String text = Files.readString(SHIPPED);
    text = replace(text, "steps: [5000, 10000, 20000, 40000, 50000, 70000, 100000]", "steps: [400, 800, 1600]");
    text = replace(text, "ramp: 30s", "ramp: 1s");
    text = replace(text, "hold: 2m", "hold: 3s");
    text = replace(text, "delay: 30s", "delay: 2s");
    text = replace(text, "${LOKI_URL:-http://127.0.0.1:3100}", loki.url());
    text = replace(text, "${VL_URL:-http://127.0.0.1:9428}", vl.url());
    Path file = dir.resolve("seed000-short.yaml");
    Files.writeString(file, text);
    return file;
  }

  private Outcome generate() throws Exception {
    Path file = shortLadder();
    Path runDir = dir.resolve("run");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"generate", file.toString(), "--run-dir", runDir.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), runDir);
  }

  private static long acked(List<LedgerEntry> ledger, String backend) {
    return ledger.stream().filter(e -> e.backend().equals(backend)).mapToLong(LedgerEntry::acked).sum();
  }

  private static long expected(List<LedgerEntry> ledger, String backend) {
    return ledger.stream().filter(e -> e.backend().equals(backend)).mapToLong(LedgerEntry::expected).sum();
  }

  /** The steps.csv rows of one backend, split into fields, in step order. */
  private static List<String[]> steps(Path runDir, String backend) throws Exception {
    List<String> lines = Files.readAllLines(runDir.resolve("steps.csv"));
    assertThat(lines.get(0)).isEqualTo(STEPS_HEADER);
    List<String[]> rows = new ArrayList<>();
    for (String l : lines.subList(1, lines.size())) {
      String[] f = l.split(",", -1);
      if (f[0].equals(backend)) {
        rows.add(f);
      }
    }
    return rows;
  }

  private static void assertHealthySteps(List<String[]> rows, String backend) {
    assertThat(rows).as(backend + " step rows").isNotEmpty();
    for (int s = 0; s < rows.size(); s++) {
      String[] f = rows.get(s);
      String row = String.join(",", f);
      assertThat(Integer.parseInt(f[1])).as(row).isEqualTo(s);
      assertThat(Long.parseLong(f[2])).as(row).isEqualTo(TARGETS[s]);
      // every batch scheduled in the hold was acknowledged: the achieved rate is the target
      // within a batch (100 lines) over the hold's 3 s
      assertThat(Double.parseDouble(f[3])).as(row).isCloseTo(TARGETS[s], org.assertj.core.data.Offset.offset(40.0));
      assertThat(Double.parseDouble(f[5])).as(row).isEqualTo(HOLD_SECONDS);
      assertThat(Double.parseDouble(f[8])).as(row + ": p95 latency from schedule").isPositive();
      assertThat(f[11]).as(row + ": failures").isEmpty();
    }
  }

  @Test
  void bothHealthyReachEveryStepAndHoldEveryLine() throws Exception {
    Outcome o = generate();
    assertThat(o.code()).as(o.printed()).isZero();
    assertThat(o.out()).contains("target/s", "achieved/s", "p95 ms").doesNotContain("aborted:");

    for (String b : List.of("loki", "victorialogs")) {
      List<String[]> rows = steps(o.runDir(), b);
      assertThat(rows).as(b).hasSize(TARGETS.length);
      assertHealthySteps(rows, b);
    }

    assertThat(loki.linesStored()).isEqualTo(LINES);
    assertThat(loki.duplicatesDropped()).isZero();
    assertThat(vl.rowsStored()).isEqualTo(LINES);

    List<LedgerEntry> ledger = LedgerFiles.read(o.runDir());
    for (String b : List.of("loki", "victorialogs")) {
      assertThat(expected(ledger, b)).as(b).isEqualTo(LINES);
      assertThat(acked(ledger, b)).as(b).isEqualTo(LINES);
    }
  }

  @Test
  void aFailingLokiIsAbortedByTheFailedRateWhileVictoriaLogsHoldsEveryLine() throws Exception {
    // A zero delay lets a push through untouched: the pushes before step 1's hold are stored,
    // every later one answers 500 (more are queued than the run's 104 pushes).
    loki.faults()
        .delayNext(BATCHES_BEFORE_STEP1_HOLD, Duration.ZERO)
        .failNext(200, 500, "ingester is unhealthy");

    Outcome o = generate();
    assertThat(o.code()).as(o.printed()).isEqualTo(1);
    assertThat(o.err()).contains("generate: backend loki was aborted: failed_rate > 0.01 (");
    assertThat(o.err()).doesNotContain("backend victorialogs");
    assertThat(o.out()).contains("aborted: backend loki (task ");

    // isolation: VictoriaLogs took every line while Loki failed
    assertThat(vl.rowsStored()).isEqualTo(LINES);
    List<String[]> vlSteps = steps(o.runDir(), "victorialogs");
    assertThat(vlSteps).hasSize(TARGETS.length);
    assertHealthySteps(vlSteps, "victorialogs");

    List<String[]> lokiSteps = steps(o.runDir(), "loki");
    assertThat(lokiSteps).hasSize(TARGETS.length);
    assertHealthySteps(lokiSteps.subList(0, 1), "loki step 0");
    // step 1's hold: the first failing push of each task answered 500, which aborted the task;
    // its later batches ended without a request
    String[] step1 = lokiSteps.get(1);
    String row1 = String.join(",", step1);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("500=(\\d+);aborted=(\\d+)").matcher(step1[11]);
    assertThat(m.matches()).as(row1).isTrue();
    assertThat(Long.parseLong(m.group(1))).as(row1).isPositive();
    // every line of the hold is either acknowledged or counted as failed
    assertThat(Long.parseLong(m.group(1)) + Long.parseLong(m.group(2)) + Long.parseLong(step1[4]))
        .as(row1).isEqualTo(TARGETS[1] * 3);
    assertThat(Double.parseDouble(step1[3])).as(row1).isLessThan(TARGETS[1] / 2.0);
    String[] step2 = lokiSteps.get(2);
    String row2 = String.join(",", step2);
    assertThat(step2[11]).as(row2).matches("aborted=\\d+");
    assertThat(Double.parseDouble(step2[3])).as(row2).isZero();

    long stored = BATCHES_BEFORE_STEP1_HOLD * 100L;
    assertThat(loki.linesStored()).isEqualTo(stored);
    List<LedgerEntry> ledger = LedgerFiles.read(o.runDir());
    assertThat(acked(ledger, "loki")).isEqualTo(stored);
    assertThat(expected(ledger, "loki")).isEqualTo(LINES);
    assertThat(acked(ledger, "victorialogs")).isEqualTo(LINES);
  }
}
