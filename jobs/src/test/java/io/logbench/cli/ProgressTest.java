package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.job.BackendSummary;
import io.logbench.schedule.ConstantRateSchedule;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchOutcome.WindowTally;
import io.logbench.sink.DeliverySettings.Mode;
import java.io.ByteArrayOutputStream;
import org.apache.flink.metrics.Gauge;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Progress lines: what generate shows per backend, and how the printer draws them. */
class ProgressTest {

  static final long START = 1_000_000L;

  static BatchOutcome outcome(long firstRunLine, int lines, int acked, Map<String, Integer> rejected, long latencyMs) {
    BatchOutcome.Status status = acked == lines ? BatchOutcome.Status.ACKED
        : acked == 0 ? BatchOutcome.Status.FAILED : BatchOutcome.Status.PARTIAL;
    return new BatchOutcome("b", firstRunLine / 100, firstRunLine, lines, status, 0, 1, 0,
        latencyMs * 1_000_000, 0, List.of(new WindowTally(0, lines, acked, rejected)));
  }

  @Test
  void generateLinesShowSentRateTargetP95FailuresLagAndEta() {
    // 1,000 lines/s for 10 s: line i is due at i ms
    ConstantRateSchedule schedule = new ConstantRateSchedule(1_000, 10_000);
    BackendSummary summary = new BackendSummary("opensearch", Mode.AT_LEAST_ONCE, 10_000, schedule, 0);
    AtomicLong now = new AtomicLong(START - 2_500);
    GenerateProgress p = new GenerateProgress("generate", schedule, 10_000, START,
        GenerateProgress.fromOutcomes(() -> List.of(summary), 10_000), now::get);

    assertThat(p.get()).containsExactly("generate: the run starts in 2 s (10,000 lines per backend)");

    // at 5 s: 4,000 lines answered (39 batches acked at 20 ms, one with 60 lines failed by 503)
    for (int b = 0; b < 39; b++) {
      summary.add(outcome(b * 100L, 100, 100, Map.of(), 20));
    }
    summary.add(outcome(3_900, 100, 40, Map.of("503", 60), 20));
    now.set(START + 5_000);
    List<String> first = p.get();
    assertThat(first).hasSize(1);
    // the first rate is over the whole run so far; 4,000 lines answered were due by 4 s: 1 s
    // behind, and at 800/s the 6,000 lines left take 7.5 s, longer than the schedule's 5 s + 1 s
    assertThat(first.get(0)).isEqualTo("generate: opensearch 4,000/10,000 lines  40%  800/s (target 1.0k/s)"
        + "  p95 20.0 ms  failed 60 (503 60)  lag 1 s  ETA 7 s");

    // 2 s later 3,000 more: the rate is over the last samples, and the lag is gone
    for (int b = 40; b < 70; b++) {
      summary.add(outcome(b * 100L, 100, 100, Map.of(), 20));
    }
    now.set(START + 7_000);
    assertThat(p.get().get(0)).contains("7,000/10,000 lines  70%  1.5k/s (target 1.0k/s)")
        .contains("lag 0 ms  ETA 3 s");

    for (int b = 70; b < 100; b++) {
      summary.add(outcome(b * 100L, 100, 100, Map.of(), 20));
    }
    now.set(START + 11_000);
    assertThat(p.get().get(0)).contains("10,000/10,000 lines 100%").contains("(target 0/s)").endsWith("ETA done");
  }

  /**
   * In-process the lines come from the job's metrics as they are now: a backend whose source and
   * delivery finished reads 100%, lag 0 and done at once (not a checkpoint later), while another
   * shows its source's own lag and its delivery's failures and p95.
   */
  @Test
  void fromTheJobsMetricsAFinishedBackendIsDoneAtOnceAndARunningOneShowsItsSourcesLag() {
    ConstantRateSchedule schedule = new ConstantRateSchedule(1_000, 10_000);
    io.logbench.metrics.LiveMetrics m = new io.logbench.metrics.LiveMetrics();
    // vl: both sources done and gone, nothing in flight
    Gauge<Long> vl0 = () -> 6_000L;
    Gauge<Long> vl1 = () -> 4_000L;
    m.notifyOfAddedMetric(vl0, "linesDone", group("vl", 0));
    m.notifyOfAddedMetric(vl1, "linesDone", group("vl", 1));
    m.notifyOfRemovedMetric(vl0, "linesDone", group("vl", 0));
    m.notifyOfRemovedMetric(vl1, "linesDone", group("vl", 1));
    // loki: 6,000 lines out, its source 2.5 s behind, 300 lines failed by 5xx
    m.notifyOfAddedMetric((Gauge<Long>) () -> 6_000L, "linesDone", group("loki", 0));
    m.notifyOfAddedMetric((Gauge<Long>) () -> 2_500L, "scheduleLagMillis", group("loki", 0));
    m.notifyOfAddedMetric((Gauge<Integer>) () -> 3, "inFlightRequests", group("loki", 0));
    org.apache.flink.metrics.SimpleCounter failed = new org.apache.flink.metrics.SimpleCounter();
    failed.inc(300);
    m.notifyOfAddedMetric(failed, "linesFailed_5xx", group("loki", 0));
    io.logbench.sink.LatencyHistogram h = new io.logbench.sink.LatencyHistogram();
    h.record(20_000);
    m.notifyOfAddedMetric(new io.logbench.metrics.HistogramMetric(() -> h), "latencyFromScheduleMicros",
        group("loki", 0));
    GenerateProgress p = new GenerateProgress("generate", schedule, 10_000, START,
        GenerateProgress.fromMetrics(() -> m, List.of("vl", "loki"), 10_000), () -> START + 8_500);
    assertThat(p.get()).containsExactly(
        "generate: vl   10,000/10,000 lines 100%  1.2k/s (target 1.0k/s)  p95 0.0 ms  failed 0  lag 0 ms  ETA done",
        "generate: loki 6,000/10,000 lines  60%  706/s (target 1.0k/s)  p95 20.0 ms  failed 300 (5xx 300)  lag 2 s"
            + "  ETA 5 s");
    // before the job's sources run there is nothing to show yet
    GenerateProgress early = new GenerateProgress("generate", schedule, 10_000, START,
        GenerateProgress.fromMetrics(() -> null, List.of("vl"), 10_000), () -> START + 100);
    assertThat(early.get()).containsExactly("generate: starting the job (10,000 lines per backend)");
  }

  private static org.apache.flink.metrics.groups.UnregisteredMetricsGroup group(String backend, int subtask) {
    return new org.apache.flink.metrics.groups.UnregisteredMetricsGroup() {
      @Override
      public Map<String, String> getAllVariables() {
        return Map.of("<backend>", backend, "<subtask_index>", "" + subtask);
      }
    };
  }

  @Test
  void anUnpacedRunHasNoTargetAndItsEtaComesFromTheRate() {
    var unpaced = new io.logbench.schedule.UnpacedSchedule(1_000);
    BackendSummary summary = new BackendSummary("kafka", Mode.AT_LEAST_ONCE, 1_000, unpaced, 0);
    for (int b = 0; b < 5; b++) {
      summary.add(outcome(b * 100L, 100, 100, Map.of(), 5));
    }
    GenerateProgress p = new GenerateProgress("publish", unpaced, 1_000, START,
        GenerateProgress.fromOutcomes(() -> List.of(summary), 1_000), () -> START + 1_000);
    assertThat(p.get()).containsExactly(
        "publish: kafka 500/1,000 lines  50%  500/s (unpaced)  p95 5.0 ms  failed 0  ETA 1 s");
  }

  @Test
  void onATerminalTheBlockIsRedrawnInPlace() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    List<List<String>> frames = new ArrayList<>(List.of(List.of("a 1", "b 1"), List.of("a 2")));
    Progress p = new Progress(Progress.Mode.TERMINAL, err, () -> frames.remove(0));
    p.print();
    p.print();
    String esc = "\u001b";
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(
        "a 1" + esc + "[K\nb 1" + esc + "[K\n"
            // up two lines, the new block, then the line left from the last block cleared
            + esc + "[2Aa 2" + esc + "[K\n" + esc + "[K\n");
  }

  @Test
  void elsewhereTheLinesArePrintedPlainAndQuietPrintsNothing() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    Progress lines = new Progress(Progress.Mode.LINES, err, () -> List.of("a 1", "b 1"));
    lines.print();
    lines.print();
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("a 1\nb 1\na 1\nb 1\n");

    bytes.reset();
    try (Progress quiet = Progress.start(Progress.Mode.QUIET, err, () -> List.of("x"))) {
      quiet.print();
    }
    assertThat(bytes.size()).isZero();
    assertThat(Progress.mode(true, System.err)).isEqualTo(Progress.Mode.QUIET);
    // a stream other than this process's standard error is never a terminal
    assertThat(Progress.mode(false, err)).isEqualTo(Progress.Mode.LINES);
  }

  @Test
  void durationsForPeople() {
    assertThat(Progress.duration(850)).isEqualTo("850 ms");
    assertThat(Progress.duration(42_400)).isEqualTo("42 s");
    assertThat(Progress.duration(185_000)).isEqualTo("3 m 05 s");
    assertThat(Progress.duration(3_720_000)).isEqualTo("1 h 02 m");
  }

  @Test
  void publishLinesShowShareLinesRateAndEta() {
    assertThat(PublishCommand.progressLine(250_000, 1_000_000, java.time.Duration.ofSeconds(10)))
        .isEqualTo("publish:  25.0%  about 250,000/1,000,000 lines  25.0k lines/s  ETA 30 s");
    assertThat(PublishCommand.progressLine(0, 1_000_000, java.time.Duration.ofSeconds(1)))
        .isEqualTo("publish:   0.0%  about 0/1,000,000 lines  0 lines/s  ETA ?");
    assertThat(PublishCommand.progressLine(1_000_000, 1_000_000, java.time.Duration.ofSeconds(40)))
        .endsWith("ETA done");
  }
}
