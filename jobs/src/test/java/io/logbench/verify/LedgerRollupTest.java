package io.logbench.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.ledger.LedgerEntry;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.schedule.Timelines;
import io.logbench.schedule.TimestampMode;
import io.logbench.schedule.UnpacedSchedule;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link LedgerRollup}: sums of the ledger rows inside a window, and the lines without a row. */
class LedgerRollupTest {

  private static final long T0 = 1_619_838_000_000L;
  private static final long MINUTE = 60_000L;
  /** 100 lines a second from T0: 6,000 lines a minute for 4 minutes. */
  private static final AppJsonDataset DATA =
      AppJsonDataset.builder().startMillis(T0).rate(100).lines(24_000).streams(5).build();
  private static final ExpectedCounts EXPECTED = new ExpectedCounts(
      Timelines.of(TimestampMode.ORIGINAL, DATA, 0, new UnpacedSchedule(DATA.size())), 0);

  private static LedgerEntry row(int k, long sent, long acked, Map<String, Long> rejected) {
    return new LedgerEntry("vl", T0 + k * MINUTE, T0 + (k + 1) * MINUTE, 6000, sent, acked, rejected);
  }

  private final LedgerRollup rollup = new LedgerRollup(MINUTE);

  @Test
  void aCoarseWindowIsTheSumOfItsLedgerRowsWithTheirReasonsMerged() {
    Map<Long, LedgerEntry> rows = new HashMap<>();
    rows.put(T0, row(0, 6000, 6000, Map.of()));
    rows.put(T0 + MINUTE, row(1, 6000, 5990, Map.of("400", 7L, "413", 3L)));
    rows.put(T0 + 2 * MINUTE, row(2, 6000, 5995, Map.of("400", 5L)));
    rows.put(T0 + 3 * MINUTE, row(3, 6000, 6000, Map.of()));

    LedgerRollup.Window first = rollup.window("vl", T0, T0 + 2 * MINUTE, rows, EXPECTED);
    assertThat(first.row()).isEqualTo(new LedgerEntry("vl", T0, T0 + 2 * MINUTE, 12_000, 12_000, 11_990,
        Map.of("400", 7L, "413", 3L)));
    assertThat(first.rows()).isEqualTo(2);
    assertThat(first.unledgered()).isZero();

    LedgerRollup.Window all = rollup.window("vl", T0, T0 + 4 * MINUTE, rows, EXPECTED);
    assertThat(all.row().expected()).isEqualTo(24_000);
    assertThat(all.row().acked()).isEqualTo(23_985);
    assertThat(all.row().rejected()).isEqualTo(Map.of("400", 12L, "413", 3L));
    assertThat(all.rows()).isEqualTo(4);
  }

  @Test
  void aWindowOfTheLedgersSizeIsItsRowUnchanged() {
    LedgerEntry r = row(1, 6000, 5990, Map.of("400", 10L));
    LedgerRollup.Window w = rollup.window("vl", T0 + MINUTE, T0 + 2 * MINUTE, Map.of(T0 + MINUTE, r), EXPECTED);
    assertThat(w.row()).isSameAs(r);
    assertThat(w.unledgered()).isZero();
    assertThat(rollup.window("vl", T0, T0 + MINUTE, Map.of(), EXPECTED).unledgered()).isEqualTo(6000);
  }

  @Test
  void ledgerWindowsWithoutARowCountTheirExpectedLinesAsUnledgered() {
    Map<Long, LedgerEntry> rows = Map.of(T0 + MINUTE, row(1, 6000, 6000, Map.of()));
    LedgerRollup.Window w = rollup.window("vl", T0, T0 + 4 * MINUTE, rows, EXPECTED);
    assertThat(w.row().acked()).isEqualTo(6000);
    assertThat(w.rows()).isEqualTo(1);
    assertThat(w.unledgered()).isEqualTo(18_000);
    // windows past the run's lines expect nothing: no row there is no gap
    assertThat(rollup.window("vl", T0 + 4 * MINUTE, T0 + 8 * MINUTE, Map.of(), EXPECTED))
        .isEqualTo(new LedgerRollup.Window(null, 0, 0));
  }

  @Test
  void aWindowThatIsNotAWholeNumberOfLedgerWindowsIsRefused() {
    assertThatThrownBy(() -> rollup.window("vl", T0, T0 + 90_000, Map.of(), EXPECTED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A window of 90000 ms is not a whole number of the ledger's 60000 ms windows.");
  }
}
