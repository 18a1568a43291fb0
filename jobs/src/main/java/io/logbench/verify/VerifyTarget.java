package io.logbench.verify;

import io.logbench.count.CountReader;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.Capabilities;
import io.logbench.sink.RunContext;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything needed to check one backend inside a Flink task: its block, the run (id, dataset
 * and first line), the expected counts, the windows, where the ledger is, and the settings.
 * Opens its reader (and with it any secret) only in {@link #openChecker}.
 *
 * @param firstStart start of the first window
 * @param windows number of consecutive windows of {@code windowMillis}
 * @param ledgerWindowMillis the ledger's window, of which {@code windowMillis} is a whole multiple
 * @param replays where the run's restore records are (what restores sent again)
 */
public record VerifyTarget(BackendSpec spec, RunContext run, ExpectedCounts expected,
    long firstStart, int windows, long windowMillis, long ledgerWindowMillis, LedgerView ledger,
    VerifySettings settings, ReplayView replays)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  public String name() {
    return spec.name();
  }

  /** Window starts, ascending. */
  public List<Long> starts() {
    List<Long> out = new ArrayList<>(windows);
    for (int k = 0; k < windows; k++) {
      out.add(firstStart + k * windowMillis);
    }
    return out;
  }

  /**
   * Whether the backend's reader gives {@code seq mod 999,999} (from the nanosecond timestamp)
   * rather than full sequence ids: its ids come from nanosecond offsets and the lines carry no
   * {@code "seq"} field of their own.
   */
  public boolean idsFromNanos() {
    return spec.capabilities().lineIds() == Capabilities.LineIds.NANOSECOND_OFFSET
        && !run.dataset().linesCarrySeq();
  }

  /** Opens the backend's count reader. */
  public CountReader openReader() {
    return spec.openCounter(run);
  }

  /** Opens the reader and a checker of every window over it. */
  public BackendChecker openChecker() {
    return new BackendChecker(name(), openReader(), starts(), windowMillis, ledgerWindowMillis, expected,
        run.firstIndex(), ledger, settings, idsFromNanos()).replays(restores());
  }

  /**
   * The backend's restore records: a count block behind a pipeline's write has its write's
   * (what the write sent again after a restore reached every output of the agent).
   */
  private ReplayView restores() {
    if (spec.write() == null || replays == null) {
      return replays;
    }
    String write = spec.write().name();
    ReplayView all = replays;
    return backend -> all.read(write);
  }
}
