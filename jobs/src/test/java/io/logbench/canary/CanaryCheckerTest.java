package io.logbench.canary;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.ledger.LedgerEntry;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.replay.Replays;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.schedule.Gaps;
import io.logbench.sink.WindowGrid;
import io.logbench.verify.Verdict.Status;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * CanaryChecker's rounds with a counter the test fills (no Flink, no backend, no clock): 10 lines
 * a second in windows of 1 s, settle 1 s, max wait 3 s, recheck 1 s, spot checks at 10 s and 20 s.
 */
class CanaryCheckerTest {

  private static final long START = 1_800_000_000_000L;
  private static final long W = 1000;

  private final RunConfig config = ConfigLoader.parse(String.join("\n",
      "dataset: {kind: app-json, streams: 2}",
      "schedule: {kind: constant, rate: 10}",
      "window: 1s",
      "batch: {lines: 5}",
      "canary: {settle: 1s, max_wait: 3s, recheck: 1s, retention: 1h,",
      "         spot_checks: {ages: [10s, 20s], older_per_hour: 0}}",
      "backends: [{kind: discard}]",
      ""), "canary");
  private final RunPlan plan = RunPlan.canary(config, "run-1");
  private final FakeCounter counter = new FakeCounter();

  private CanaryGrid grid(Gaps gaps) {
    ExpectedCounts e = plan.expectedCounts(START).withGaps(gaps);
    return new CanaryGrid(new WindowGrid(START, W), e, plan.firstIndex());
  }

  private CanaryChecker checker(Gaps gaps) {
    return new CanaryChecker("b", config.canary(), grid(gaps), START, START);
  }

  /** The ledger's row of window {@code k}: {@code acked} of its lines sent and acknowledged. */
  private static LedgerEntry row(int k, long expected, long acked) {
    return new LedgerEntry("b", START + k * W, START + (k + 1) * W, expected, expected, acked, Map.of());
  }

  /** The spot checks among {@code records}. */
  private static List<CanaryRecord> spots(List<CanaryRecord> records) {
    return records.stream().filter(r -> r.check() == CanaryRecord.Check.SPOT).toList();
  }

  /** Plans and runs one round at {@code now} and applies it; the records that became final. */
  private List<CanaryRecord> round(CanaryChecker c, long now) {
    CanaryChecker.Round r = c.plan(now);
    return r == null ? List.of() : c.apply(r.run(counter, Replays.none()));
  }

  @Test
  void aWindowIsCheckedOnceItSettlesAndIsOkWhenItHoldsWhatWasAcked() {
    CanaryChecker c = checker(Gaps.none());
    c.offer(row(0, 10, 10));
    counter.hold(0, 10);
    assertThat(c.plan(START + W + 999)).as("not due before settle").isNull();
    assertThat(c.nextWake(START)).isEqualTo(START + 2 * W);
    List<CanaryRecord> out = round(c, START + 2 * W);
    assertThat(out).hasSize(1);
    assertThat(out.get(0).verdict().status()).isEqualTo(Status.OK);
    assertThat(out.get(0).window().firstSeq()).isZero();
    assertThat(out.get(0).window().endSeq()).isEqualTo(10);
    assertThat(out.get(0).row()).isEqualTo(row(0, 10, 10));
    assertThat(c.windows(Status.OK)).isEqualTo(1);
    assertThat(c.newestSettledEnd()).isEqualTo(START + W);
    assertThat(c.openWindows()).as("window 1, ended, not due yet").isEqualTo(1);
  }

  @Test
  void aMissingLineIsFinalOnlyAfterMaxWaitAndNamesItsSequenceId() {
    CanaryChecker c = checker(Gaps.none());
    c.offer(row(0, 10, 10));
    counter.hold(0, 10);
    counter.lose(3);
    long due = START + 2 * W;
    assertThat(round(c, due)).as("first count: MISSING, not final yet").isEmpty();
    assertThat(round(c, due + 1000)).isEmpty();
    List<CanaryRecord> out = round(c, due + 3000);
    assertThat(out).hasSize(1);
    CanaryRecord r = out.get(0);
    assertThat(r.verdict().status()).isEqualTo(Status.MISSING);
    assertThat(r.verdict().observed()).isEqualTo(9);
    assertThat(r.drill().missing()).containsExactly(3L);
    assertThat(c.lines(CanaryChecker.Lines.MISSING)).isEqualTo(1);
    assertThat(r.json(java.time.ZoneOffset.UTC)).contains("\"status\":\"MISSING\"", "\"missing_ids\":[3]");
  }

  @Test
  void aLineFoundLateWithinMaxWaitIsNoFalseAlarm() {
    CanaryChecker c = checker(Gaps.none());
    c.offer(row(0, 10, 10));
    counter.hold(0, 10);
    counter.lose(3);
    assertThat(round(c, START + 2 * W)).isEmpty();
    counter.found(3);
    List<CanaryRecord> out = round(c, START + 3 * W);
    assertThat(out).extracting(x -> x.verdict().status()).containsExactly(Status.OK);
  }

  @Test
  void aBackendThatDoesNotAnswerLeavesTheWindowPendingUntilMaxWait() {
    CanaryChecker c = checker(Gaps.none());
    c.offer(row(0, 10, 10));
    counter.down = true;
    assertThat(round(c, START + 2 * W)).isEmpty();
    List<CanaryRecord> out = round(c, START + 5 * W);
    assertThat(out).hasSize(1);
    assertThat(out.get(0).verdict().status()).isEqualTo(Status.PENDING);
    assertThat(out.get(0).verdict().detail()).contains("did not answer", "still pending after 3 s");
    assertThat(c.countErrors()).isEqualTo(2);
  }

  @Test
  void aWindowWithoutLedgerRowIsPendingNotOk() {
    CanaryChecker c = checker(Gaps.none());
    counter.hold(0, 0);
    round(c, START + 2 * W);
    List<CanaryRecord> out = round(c, START + 6 * W);
    assertThat(out).extracting(x -> x.verdict().status()).contains(Status.PENDING);
    assertThat(out.get(0).verdict().detail()).contains("the ledger has no row for this window yet");
  }

  @Test
  void windowsOfAGapAreNotCheckedAndPartOfAGapIsNotExpected() {
    // lines 15 to 35 never sent: window 1 (lines 10-19) expects 5, windows 2 expects none, window 3 expects 5
    CanaryChecker c = checker(Gaps.of(List.of(new long[] {15, 35})));
    c.offer(row(1, 5, 5));
    c.offer(row(3, 5, 5));
    for (int k = 0; k < 4; k++) {
      counter.hold(k, 0);
    }
    counter.holdIds(1, 10, 15);
    counter.holdIds(3, 35, 40);
    c.offer(row(0, 10, 10));
    counter.hold(0, 10);
    List<CanaryRecord> out = round(c, START + 5 * W);
    assertThat(out).extracting(x -> x.window().start() - START).containsExactly(0L, W, 3 * W);
    assertThat(out).extracting(x -> x.verdict().status()).containsOnly(Status.OK);
    assertThat(out.get(1).window().expected()).isEqualTo(5);
    assertThat(c.gapWindows()).isEqualTo(1);

    // a loss next to a gap names only the lost id, never the ids of the gap
    CanaryChecker d = checker(Gaps.of(List.of(new long[] {15, 35})));
    d.offer(row(1, 5, 5));
    counter.holdIds(1, 10, 15);
    counter.lose(12);
    d.plan(START + 2 * W);
    round(d, START + 3 * W);
    List<CanaryRecord> missing = round(d, START + 6 * W);
    assertThat(missing).extracting(x -> x.verdict().status()).contains(Status.MISSING);
    CanaryRecord m = missing.stream().filter(x -> x.verdict().status() == Status.MISSING).findFirst().orElseThrow();
    assertThat(m.drill().missing()).containsExactly(12L);
    assertThat(m.drill().missingTotal()).isEqualTo(1);
  }

  @Test
  void spotChecksCountVerifiedWindowsAgainAtEachAgeAndTellALossOnceWithItsIds() {
    CanaryChecker c = checker(Gaps.none());
    c.offer(row(0, 10, 10));
    counter.hold(0, 10);
    assertThat(round(c, START + 2 * W)).extracting(x -> x.verdict().status()).containsExactly(Status.OK);
    assertThat(c.storedWindows()).isEqualTo(1);
    long at10 = START + W + 10_000;
    assertThat(c.nextWake(START + 3 * W)).isLessThanOrEqualTo(at10);
    List<CanaryRecord> spot = spots(round(c, at10));
    assertThat(spot).hasSize(1);
    assertThat(spot.get(0).check()).isEqualTo(CanaryRecord.Check.SPOT);
    assertThat(spot.get(0).age()).isEqualTo("10s");
    assertThat(spot.get(0).verdict().status()).isEqualTo(Status.OK);

    // lines 4 and 7 deleted: told at the 20 s spot check, after a second count agrees
    counter.lose(4);
    counter.lose(7);
    long at20 = START + W + 20_000;
    assertThat(spots(round(c, at20))).as("a difference is counted again first").isEmpty();
    List<CanaryRecord> lost = spots(round(c, at20 + 1000));
    assertThat(lost).hasSize(1);
    CanaryRecord r = lost.get(0);
    assertThat(r.verdict().status()).isEqualTo(Status.LOST);
    assertThat(r.heldBefore()).isEqualTo(10);
    assertThat(r.verdict().observed()).isEqualTo(8);
    assertThat(r.drill().missing()).containsExactly(4L, 7L);
    assertThat(r.verdict().detail()).startsWith("2 line(s) lost after they were stored: the window held 10 at its"
        + " verdict, 8 counted again at ");
    assertThat(c.lines(CanaryChecker.Lines.LOST)).isEqualTo(2);
    assertThat(c.spotLost()).isEqualTo(1);
    assertThat(spots(round(c, at20 + 60_000))).as("no spot age left for the window").isEmpty();
  }

  @Test
  void olderWindowsAreDrawnAtRandomWithinTheRetention() {
    RunConfig older = ConfigLoader.parse(String.join("\n",
        "dataset: {kind: app-json, streams: 2}",
        "schedule: {kind: constant, rate: 10}",
        "window: 1s",
        "canary: {settle: 1s, max_wait: 3s, recheck: 1s, retention: 1h, spot_checks: {ages: [10s], older_per_hour: 60}}",
        "backends: [{kind: discard}]",
        ""), "canary");
    CanaryChecker c = new CanaryChecker("b", older.canary(), grid(Gaps.none()), START, START);
    for (int k = 0; k < 5; k++) {
      c.offer(row(k, 10, 10));
      counter.hold(k, 10);
    }
    round(c, START + 7 * W);
    round(c, START + 20 * W); // the 10 s spot checks
    List<CanaryRecord> drawn = spots(round(c, START + 60_000));
    assertThat(drawn).hasSize(1);
    assertThat(drawn.get(0).age()).isEqualTo(CanaryChecker.OLDER);
    assertThat(drawn.get(0).verdict().status()).isEqualTo(Status.OK);
    assertThat(spots(round(c, START + 61_000))).as("the next draw a minute later").isEmpty();
  }

  @Test
  void itsStateComesBackFromASnapshot() {
    CanaryChecker c = checker(Gaps.none());
    c.offer(row(0, 10, 10));
    c.offer(row(1, 10, 10));
    counter.hold(0, 10);
    counter.hold(1, 10);
    round(c, START + 2 * W); // window 0 final, window 1 not due
    c.offer(row(2, 10, 7));
    CanaryChecker back = CanaryChecker.restore(c.snapshot(), "b", config.canary(), grid(Gaps.none()), START + 2 * W);
    assertThat(back.snapshot()).isEqualTo(c.snapshot());
    assertThat(back.openWindows()).isEqualTo(2);
    assertThat(back.windows(Status.OK)).isEqualTo(1);
    List<CanaryRecord> out = round(back, START + 3 * W);
    assertThat(out).extracting(x -> x.window().start()).containsExactly(START + W);
  }

  @Test
  void aRowForAWindowAlreadyFinalIsCountedAsLate() {
    CanaryChecker c = checker(Gaps.none());
    c.offer(row(0, 10, 10));
    counter.hold(0, 10);
    round(c, START + 2 * W);
    c.offer(row(0, 10, 10));
    assertThat(c.lateRows()).isEqualTo(1);
    assertThat(c.openWindows()).as("window 1 only").isEqualTo(1);
  }

  /** Counts per window index from ids held: 0 to 9 in window 0, 10 to 19 in window 1, ... */
  private static final class FakeCounter implements WindowCounter {
    final Map<Integer, Set<Long>> ids = new HashMap<>();
    final Set<Long> lost = new HashSet<>();
    boolean down;

    void hold(int k, long lines) {
      holdIds(k, k * 10L, k * 10L + lines);
    }

    void holdIds(int k, long from, long to) {
      Set<Long> s = ids.computeIfAbsent(k, x -> new HashSet<>());
      for (long i = from; i < to; i++) {
        s.add(i);
      }
    }

    void lose(long id) {
      lost.add(id);
    }

    void found(long id) {
      lost.remove(id);
    }

    private int index(CanaryWindow w) {
      return (int) ((w.start() - START) / W);
    }

    private List<Long> held(int k) {
      List<Long> out = new ArrayList<>();
      for (long id : ids.getOrDefault(k, Set.of())) {
        if (!lost.contains(id)) {
          out.add(id);
        }
      }
      return out;
    }

    @Override
    public long[] counts(List<CanaryWindow> windows) throws IOException {
      if (down) {
        throw new IOException("connection refused");
      }
      long[] out = new long[windows.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = held(index(windows.get(i))).size();
      }
      return out;
    }

    @Override
    public List<Long> sequenceIds(CanaryWindow window, int limit) {
      return held(index(window));
    }

    @Override
    public boolean idsFromNanos() {
      return false;
    }

    @Override
    public void close() {}
  }
}
