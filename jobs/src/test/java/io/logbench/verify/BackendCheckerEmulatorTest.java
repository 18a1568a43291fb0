package io.logbench.verify;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.count.LineIds;
import io.logbench.ledger.LedgerEntry;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.schedule.Timelines;
import io.logbench.schedule.TimestampMode;
import io.logbench.schedule.UnpacedSchedule;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.emulator.WindowedPush;
import io.logbench.sink.loki.LokiBackend;
import io.logbench.sink.loki.LokiEmulator;
import io.logbench.sink.victorialogs.VictoriaLogsBackend;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.verify.BackendChecker.Result;
import io.logbench.verify.Verdict.Status;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * BackendChecker against the Loki and VictoriaLogs emulators (not real servers): lines pushed
 * with the real senders, a ledger written by the test, loss and duplicates injected at known
 * windows; time is given to {@code step}, so nothing sleeps.
 */
class BackendCheckerEmulatorTest {

  private static final long MINUTE = 60_000L;
  private static final int WINDOWS = 4;
  /** 100 lines a second from the first window's first millisecond: 6,000 lines a window. */
  private final WindowedPush data = new WindowedPush(MAY_2021_MILLIS, 100, WINDOWS * 6000L, MAY_2021_MILLIS, MINUTE,
      WINDOWS);
  private final ExpectedCounts expected = new ExpectedCounts(
      Timelines.of(TimestampMode.ORIGINAL, data.dataset(), 0, new UnpacedSchedule(data.dataset().size())), 0);
  private final LokiEmulator loki = new LokiEmulator();
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().retention(Duration.ofDays(36_500));
  /** What the ledger says the backend acknowledged, by window index. */
  private final long[] acked = data.expected().clone();

  @AfterEach
  void stop() {
    loki.close();
    vl.close();
  }

  private LokiBackend loki(Duration timeout) {
    return new LokiBackend("loki", URI.create(loki.url()), LokiBackend.Format.PROTOBUF, null, Map.of(), null, timeout, timeout);
  }

  private VictoriaLogsBackend vl() {
    return new VictoriaLogsBackend("vl", URI.create(vl.url()), "0", "0", null, Duration.ofDays(36_500), null,
        Duration.ofSeconds(5), Duration.ofSeconds(5));
  }

  private LedgerView ledger(String backend) {
    return name -> {
      Map<Long, LedgerEntry> rows = new HashMap<>();
      for (int k = 0; k < WINDOWS; k++) {
        long s = MAY_2021_MILLIS + k * MINUTE;
        rows.put(s, new LedgerEntry(backend, s, s + MINUTE, data.expected()[k], acked[k], acked[k], Map.of()));
      }
      return new LedgerView.Snapshot(rows, true);
    };
  }

  private BackendChecker checker(io.logbench.sink.BackendSpec spec, VerifySettings settings) {
    List<Long> starts = new ArrayList<>();
    for (int k = 0; k < WINDOWS; k++) {
      starts.add(MAY_2021_MILLIS + k * MINUTE);
    }
    return new BackendChecker(spec.name(), spec.openCounter(RunContext.of(data.dataset().streams())), starts, MINUTE, expected, 0,
        ledger(spec.name()), settings, false);
  }

  private static VerifySettings oneShot() {
    return new VerifySettings(false, Duration.ZERO, Duration.ofSeconds(10), Duration.ofSeconds(1), 100);
  }

  /** The end of the last window: every window is due. */
  private static final long END = MAY_2021_MILLIS + WINDOWS * MINUTE;

  private static Map<Status, Long> statuses(List<Result> results) {
    Map<Status, Long> out = new HashMap<>();
    results.forEach(r -> out.merge(r.verdict().status(), 1L, Long::sum));
    return out;
  }

  @Test
  void aCleanRunIsAllOkFromOneCountQuery() {
    try (BatchSender s = loki(Duration.ofSeconds(5)).open(RunContext.of(data.dataset().streams()))) {
      data.sendAll(s);
    }
    BackendChecker c = checker(loki(Duration.ofSeconds(5)), oneShot());
    List<Result> results = c.step(END);
    assertThat(results).extracting(r -> r.verdict().status()).containsOnly(Status.OK).hasSize(WINDOWS);
    assertThat(results).extracting(r -> r.verdict().observed()).containsExactly(6000L, 6000L, 6000L, 6000L);
    assertThat(c.done()).isTrue();
    assertThat(c.stats().requests()).isEqualTo(1);
  }

  @Test
  void aLineOnAWindowBoundaryCountsInTheWindowItStarts() {
    // line 6000 is at 03:01:00.000 exactly, the first millisecond of window 1
    assertThat(data.dataset().timestampMillis(6000)).isEqualTo(MAY_2021_MILLIS + MINUTE);
    try (BatchSender s = loki(Duration.ofSeconds(5)).open(RunContext.of(data.dataset().streams()))) {
      data.sendAll(s);
    }
    loki.faults().clear();
    BackendChecker c = checker(loki(Duration.ofSeconds(5)), oneShot());
    assertThat(statuses(c.step(END))).isEqualTo(Map.of(Status.OK, (long) WINDOWS));
    try (var reader = loki(Duration.ofSeconds(5)).openCounter(RunContext.of(data.dataset().streams()))) {
      assertThat(reader.sequenceIds(MAY_2021_MILLIS + MINUTE, MAY_2021_MILLIS + MINUTE + 1, 5)).containsExactly(6000L);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void linesLostAfterAcceptanceAreMissingInExactlyTheirWindowWithTheirIds() {
    try (BatchSender s = loki(Duration.ofSeconds(5)).open(RunContext.of(data.dataset().streams()))) {
      WindowedPush.sendAccepted(s, data.batch(0));
      loki.faults().loseFromNext(7);
      WindowedPush.sendAccepted(s, data.batch(1));
      WindowedPush.sendAccepted(s, data.batch(2));
      WindowedPush.sendAccepted(s, data.batch(3));
    }
    Set<Long> stored = new HashSet<>();
    loki.entries().forEach(e -> stored.add(LineIds.seqField(e.line())));
    List<Long> lost = new ArrayList<>(data.ids(1));
    lost.removeAll(stored);
    assertThat(lost).hasSize(7);

    List<Result> results = checker(loki(Duration.ofSeconds(5)), oneShot()).step(END);
    assertThat(results).extracting(r -> r.verdict().status())
        .containsExactly(Status.OK, Status.MISSING, Status.OK, Status.OK);
    Result missing = results.get(1);
    assertThat(missing.verdict().backend()).isEqualTo("loki");
    assertThat(missing.verdict().windowStartMillis()).isEqualTo(MAY_2021_MILLIS + MINUTE);
    assertThat(missing.verdict().missingLines()).isEqualTo(7);
    assertThat(missing.drill().missing()).containsExactlyElementsOf(lost);
    assertThat(missing.drill().duplicates()).isEmpty();
  }

  @Test
  void lokisIdenticalLineDedupIsMissingForThatWindow() {
    try (BatchSender s = loki(Duration.ofSeconds(5)).open(RunContext.of(data.dataset().streams()))) {
      data.sendAll(s);
      WindowedPush.sendAccepted(s, data.batch(2));
    }
    acked[2] *= 2; // the backend acknowledged both pushes
    List<Result> results = checker(loki(Duration.ofSeconds(5)), oneShot()).step(END);
    assertThat(results).extracting(r -> r.verdict().status())
        .containsExactly(Status.OK, Status.OK, Status.MISSING, Status.OK);
    assertThat(results.get(2).verdict().missingLines()).isEqualTo(6000);
    assertThat(loki.duplicatesDropped()).isEqualTo(6000);
  }

  @Test
  void anExtraPushIsDuplicateWithTheRepeatedIds() {
    try (BatchSender s = vl().open(RunContext.of(data.dataset().streams()))) {
      data.sendAll(s);
      WindowedPush.sendAccepted(s, data.batch(3));
    }
    List<Result> results = checker(vl(), oneShot()).step(END);
    assertThat(results).extracting(r -> r.verdict().status())
        .containsExactly(Status.OK, Status.OK, Status.OK, Status.DUPLICATE);
    Result dup = results.get(3);
    assertThat(dup.verdict().duplicateLines()).isEqualTo(6000);
    assertThat(dup.drill().duplicates()).hasSize(100).containsEntry(18_000L, 2).containsEntry(18_099L, 2);
    assertThat(dup.drill().missing()).isEmpty();
  }

  @Test
  void aBackendThatDoesNotAnswerIsPendingUntilTheDeadlineThenFailsAndIsNeverOk() {
    try (BatchSender s = loki(Duration.ofSeconds(5)).open(RunContext.of(data.dataset().streams()))) {
      data.sendAll(s);
    }
    loki.queryFaults().hangNext(2);
    BackendChecker c = checker(loki(Duration.ofMillis(300)), oneShot());
    assertThat(c.step(END)).isEmpty();
    assertThat(c.done()).isFalse();
    assertThat(c.nextWakeMillis(END)).isEqualTo(END + 1000);
    List<Result> last = c.step(END + 10_000);
    assertThat(last).extracting(r -> r.verdict().status()).containsOnly(Status.PENDING).hasSize(WINDOWS);
    assertThat(last.get(0).verdict().detail())
        .startsWith("the backend did not answer: Loki backend 'loki' did not answer the count query")
        .endsWith("(still pending after 10 s of retries)");
    assertThat(c.done()).isTrue();
  }

  @Test
  void continuousModeWaitsForSettleAndEndsOkWhenLateLinesArrive() {
    try (BatchSender s = vl().open(RunContext.of(data.dataset().streams()))) {
      for (int k = 0; k < 3; k++) {
        WindowedPush.sendAccepted(s, data.batch(k));
      }
    }
    VerifySettings continuous = new VerifySettings(true, Duration.ofSeconds(30), Duration.ofMinutes(1),
        Duration.ofSeconds(5), 100);
    BackendChecker c = checker(vl(), continuous);
    long lastDue = END + 30_000;
    // before the last window settles, the first three are checked and final
    assertThat(c.step(lastDue - 1)).extracting(r -> r.verdict().status()).containsOnly(Status.OK).hasSize(3);
    assertThat(c.nextWakeMillis(lastDue - 1)).isEqualTo(lastDue);
    assertThat(c.step(lastDue)).isEmpty(); // window 3 is MISSING for now: not final yet
    assertThat(c.nextWakeMillis(lastDue)).isEqualTo(lastDue + 5_000);
    try (BatchSender s = vl().open(RunContext.of(data.dataset().streams()))) {
      WindowedPush.sendAccepted(s, data.batch(3));
    }
    assertThat(c.step(lastDue + 5_000)).extracting(r -> r.verdict().status()).containsExactly(Status.OK);
    assertThat(c.done()).isTrue();
  }

  @Test
  void continuousModeEndsMissingAfterMaxWaitWhenTheWindowNeverMatches() {
    try (BatchSender s = vl().open(RunContext.of(data.dataset().streams()))) {
      for (int k = 0; k < 3; k++) {
        WindowedPush.sendAccepted(s, data.batch(k));
      }
    }
    VerifySettings continuous = new VerifySettings(true, Duration.ZERO, Duration.ofMinutes(1), Duration.ofSeconds(5), 3);
    BackendChecker c = checker(vl(), continuous);
    assertThat(c.step(END)).hasSize(3);
    assertThat(c.step(END + 59_999)).isEmpty();
    List<Result> last = c.step(END + 60_000);
    assertThat(last).extracting(r -> r.verdict().status()).containsExactly(Status.MISSING);
    assertThat(last.get(0).verdict().missingLines()).isEqualTo(6000);
    assertThat(last.get(0).drill().missing()).containsExactly(18_000L, 18_001L, 18_002L);
    assertThat(last.get(0).drill().missingTotal()).isEqualTo(6000);
    assertThat(c.missingLines()).isEqualTo(6000);
  }

  /** A checker of windows of {@code windowMillis} over the test's 1-minute ledger rows. */
  private BackendChecker coarse(io.logbench.sink.BackendSpec spec, long windowMillis, LedgerView ledger,
      VerifySettings settings) {
    List<Long> starts = new ArrayList<>();
    for (long s = MAY_2021_MILLIS; s < END; s += windowMillis) {
      starts.add(s);
    }
    return new BackendChecker(spec.name(), spec.openCounter(RunContext.of(data.dataset().streams())), starts,
        windowMillis, MINUTE, expected, 0, ledger, settings, false);
  }

  /** Pushes every window to the Loki emulator, losing 7 lines of window 1; returns them. */
  private List<Long> pushLosingSevenOfWindowOne() {
    try (BatchSender s = loki(Duration.ofSeconds(5)).open(RunContext.of(data.dataset().streams()))) {
      WindowedPush.sendAccepted(s, data.batch(0));
      loki.faults().loseFromNext(7);
      for (int k = 1; k < WINDOWS; k++) {
        WindowedPush.sendAccepted(s, data.batch(k));
      }
    }
    Set<Long> stored = new HashSet<>();
    loki.entries().forEach(e -> stored.add(LineIds.seqField(e.line())));
    List<Long> lost = new ArrayList<>(data.ids(1));
    lost.removeAll(stored);
    assertThat(lost).hasSize(7);
    return lost;
  }

  @Test
  void theSameLossShowsInTheWindowHoldingItAtEveryMultipleOfTheLedgersWindow() {
    List<Long> lost = pushLosingSevenOfWindowOne();
    for (long size : new long[] {MINUTE, 2 * MINUTE, 4 * MINUTE}) {
      BackendChecker c = coarse(loki(Duration.ofSeconds(5)), size, ledger("loki"), oneShot());
      List<Result> results = c.step(END);
      assertThat(results).as("%d ms windows", size).hasSize((int) (WINDOWS * MINUTE / size));
      for (Result r : results) {
        boolean holdsTheLoss = r.verdict().windowStartMillis() <= MAY_2021_MILLIS + MINUTE
            && r.verdict().windowEndMillis() > MAY_2021_MILLIS + MINUTE;
        long lines = size / MINUTE * 6000;
        assertThat(r.verdict().expected()).isEqualTo(lines);
        assertThat(r.verdict().acked()).as("the ledger rows inside, summed").isEqualTo(lines);
        assertThat(r.verdict().status()).isEqualTo(holdsTheLoss ? Status.MISSING : Status.OK);
        assertThat(r.verdict().missingLines()).isEqualTo(holdsTheLoss ? 7 : 0);
        if (holdsTheLoss) {
          assertThat(r.drill().missing()).containsExactlyElementsOf(lost);
          assertThat(r.drill().note()).isEmpty();
        }
      }
    }
  }

  @Test
  void aCoarseWindowTooBigToReadWholeIsDrilledThroughItsLedgerWindowsThatDiffer() {
    List<Long> lost = pushLosingSevenOfWindowOne();
    List<Result> results = coarse(loki(Duration.ofSeconds(5)), 4 * MINUTE, ledger("loki"), oneShot())
        .maxDrillRead(10_000).step(END);
    assertThat(results).hasSize(1);
    Result r = results.get(0);
    assertThat(r.verdict().status()).isEqualTo(Status.MISSING);
    assertThat(r.verdict().missingLines()).isEqualTo(7);
    assertThat(r.drill().missing()).containsExactlyElementsOf(lost);
    assertThat(r.drill().missingTotal()).isEqualTo(7);
    assertThat(r.drill().note()).isEqualTo("the window holds 24000 lines, more than the 10000 a drill-down reads;"
        + " listed the ids of the 1 ledger window(s) of 1m whose count differs from the ledger; a loss and a"
        + " duplicate within one ledger window cancel out and are not listed");
    // a window of the ledger's own size that is too big stays impossible, and says why
    Result fine = coarse(loki(Duration.ofSeconds(5)), MINUTE, ledger("loki"), oneShot()).maxDrillRead(5_000)
        .step(END).get(1);
    assertThat(fine.verdict().status()).isEqualTo(Status.MISSING);
    assertThat(fine.drill().missing()).isEmpty();
    assertThat(fine.drill().note()).isEqualTo("the window holds 6000 lines, more than the 5000 a drill-down reads");
  }

  @Test
  void continuousCoarseWindowsWaitUntilEveryLedgerRowInsideIsThere() {
    try (BatchSender s = vl().open(RunContext.of(data.dataset().streams()))) {
      data.sendAll(s);
    }
    Map<Long, LedgerEntry> rows = new java.util.concurrent.ConcurrentHashMap<>();
    LedgerView live = name -> new LedgerView.Snapshot(Map.copyOf(rows), false);
    for (int k = 0; k < 3; k++) {
      long s = MAY_2021_MILLIS + k * MINUTE;
      rows.put(s, new LedgerEntry("vl", s, s + MINUTE, 6000, 6000, 6000, Map.of()));
    }
    VerifySettings continuous =
        new VerifySettings(true, Duration.ZERO, Duration.ofMinutes(1), Duration.ofSeconds(5), 10);
    BackendChecker c = coarse(vl(), 2 * MINUTE, live, continuous);
    // the first 2-minute window has both rows: OK; the second lacks its last minute's row
    assertThat(c.step(END)).extracting(r -> r.verdict().status()).containsExactly(Status.OK);
    assertThat(c.done()).isFalse();
    long last = MAY_2021_MILLIS + 3 * MINUTE;
    rows.put(last, new LedgerEntry("vl", last, last + MINUTE, 6000, 3000, 3000, Map.of()));
    assertThat(c.step(END + 5_000)).as("its row still waits for batches").isEmpty();
    rows.put(last, new LedgerEntry("vl", last, last + MINUTE, 6000, 6000, 6000, Map.of()));
    List<Result> done = c.step(END + 10_000);
    assertThat(done).extracting(r -> r.verdict().status()).containsExactly(Status.OK);
    assertThat(done.get(0).verdict().acked()).isEqualTo(12_000);
    assertThat(c.done()).isTrue();
  }

  @Test
  void windowsThatAreNotAWholeNumberOfLedgerWindowsAreRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new BackendChecker("vl",
            vl().openCounter(RunContext.of(data.dataset().streams())), List.of(MAY_2021_MILLIS), 90_000, MINUTE,
            expected, 0, ledger("vl"), oneShot(), false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Windows of 90000 ms are not a whole number of the ledger's 60000 ms windows.");
  }
}
