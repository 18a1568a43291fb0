package io.logbench.verify;

import io.logbench.count.CountReader;
import io.logbench.ledger.LedgerEntry;
import io.logbench.replay.Replays;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.verify.Verdict.Status;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks one backend's windows: each window is due {@code settle} after its end; every {@link
 * #step} counts all due, unsettled windows with one {@link CountReader#counts} call per contiguous
 * run of them (the reader splits to fit its limits), reads the ledger, judges each window, and
 * returns the verdicts that became final, with a drill-down for MISSING and DUPLICATE ones.
 *
 * <p>A DUPLICATE window whose extra copies the run's restore records explain becomes REPLAYED
 * when it is final ({@link ReplayRule}, with {@link #replays}).
 *
 * <p>Final: OK and REJECTED at once; MISSING and DUPLICATE at once in one-shot mode, in continuous
 * mode only when they persist until {@code maxWait} after the window's first check; PENDING (no
 * answer) is retried until that deadline and is then final as PENDING. The caller decides when to call
 * {@link #step} ({@link #nextWakeMillis}); nothing here sleeps. Not thread-safe.
 */
public final class BackendChecker {

  /** A final verdict and, for MISSING and DUPLICATE windows, its drill-down (else null). */
  public record Result(Verdict verdict, Drill drill) implements java.io.Serializable {}

  /** Most windows one counts call asks for (the reader splits further to fit its backend). */
  static final int MAX_WINDOWS_PER_CALL = 100_000;
  /** Most ids read back for one drill-down. */
  static final int MAX_DRILL_READ = 2_000_000;

  private final String backend;
  private final CountReader reader;
  private final long[] starts;
  private final long windowMillis;
  private final ExpectedCounts expected;
  private final long firstIndex;
  private final LedgerView ledger;
  private final VerifySettings settings;
  private final boolean idsFromNanos;
  private final Verdict[] last;
  private final boolean[] settled;
  /** When each window was first checked (its max-wait counts from then); 0 before. */
  private final long[] firstCheck;
  private int open;
  private long missingLines;
  private long duplicateLines;
  private long replayedLines;
  private ReplayView replayView = ReplayView.none();
  /** The restore records as of the current {@link #step}. */
  private Replays replays = Replays.none();

  /**
   * @param starts window starts, ascending, each {@code windowMillis} after the one before
   * @param firstIndex the plan's first index: sequence id of the run's first line
   * @param idsFromNanos the reader's ids are nanosecond offsets ({@code seq mod 999,999})
   */
  public BackendChecker(String backend, CountReader reader, List<Long> starts, long windowMillis,
      ExpectedCounts expected, long firstIndex, LedgerView ledger, VerifySettings settings, boolean idsFromNanos) {
    this.backend = backend;
    this.reader = reader;
    this.starts = starts.stream().mapToLong(Long::longValue).toArray();
    for (int k = 1; k < this.starts.length; k++) {
      if (this.starts[k] - this.starts[k - 1] != windowMillis) {
        throw new IllegalArgumentException("Window starts must be consecutive windows of " + windowMillis + " ms.");
      }
    }
    this.windowMillis = windowMillis;
    this.expected = expected;
    this.firstIndex = firstIndex;
    this.ledger = ledger;
    this.settings = settings;
    this.idsFromNanos = idsFromNanos;
    this.last = new Verdict[this.starts.length];
    this.settled = new boolean[this.starts.length];
    this.firstCheck = new long[this.starts.length];
    this.open = this.starts.length;
  }

  public String backend() {
    return backend;
  }

  /** Every window has its final verdict. */
  public boolean done() {
    return open == 0;
  }

  /** Windows without a final verdict yet. */
  public int pendingWindows() {
    return open;
  }

  /** Lines found missing in final verdicts so far. */
  public long missingLines() {
    return missingLines;
  }

  /** Lines found duplicated in final verdicts so far. */
  public long duplicateLines() {
    return duplicateLines;
  }

  /** Extra copies of lines sent again after a restore, in final verdicts so far. */
  public long replayedLines() {
    return replayedLines;
  }

  /** Reads the backend's restore records from {@code view} at every step (none by default). */
  public BackendChecker replays(ReplayView view) {
    this.replayView = view;
    return this;
  }

  public CountReader.QueryStats stats() {
    return reader.stats();
  }

  /** Closes the reader. */
  public void close() {
    reader.close();
  }

  private long due(int k) {
    return starts[k] + windowMillis + settings.settle().toMillis();
  }

  /** When a window checked first at {@code firstCheck[k]} stops being re-checked. */
  private long deadline(int k) {
    return Math.max(due(k), firstCheck[k]) + settings.maxWait().toMillis();
  }

  /** When the next {@link #step} has something to do; Long.MAX_VALUE when done. */
  public long nextWakeMillis(long nowMillis) {
    long wake = Long.MAX_VALUE;
    for (int k = 0; k < starts.length; k++) {
      if (!settled[k]) {
        long d = due(k);
        long at = d > nowMillis ? d : last[k] == null ? nowMillis : Math.min(deadline(k),
            nowMillis + settings.recheck().toMillis());
        wake = Math.min(wake, Math.max(at, nowMillis));
        if (d > nowMillis) {
          break; // windows are due in order
        }
      }
    }
    return wake;
  }

  /** Checks every due window without a final verdict; returns the verdicts that became final. */
  public List<Result> step(long nowMillis) {
    List<Result> out = new ArrayList<>();
    LedgerView.Snapshot rows;
    String ledgerError = null;
    try {
      rows = ledger.read(backend);
    } catch (IOException e) {
      rows = new LedgerView.Snapshot(Map.of(), false);
      ledgerError = e.getMessage();
    }
    try {
      replays = replayView.read(backend);
    } catch (IOException e) {
      // without records every extra copy stays DUPLICATE, which fails verify: nothing is hidden
      replays = Replays.none();
    }
    int k = 0;
    while (k < starts.length) {
      if (settled[k] || due(k) > nowMillis) {
        k++;
        continue;
      }
      int from = k;
      while (k < starts.length && k - from < MAX_WINDOWS_PER_CALL && !settled[k] && due(k) <= nowMillis) {
        k++;
      }
      checkRun(from, k, rows, ledgerError, nowMillis, out);
    }
    return out;
  }

  private void checkRun(int from, int to, LedgerView.Snapshot rows, String ledgerError, long now, List<Result> out) {
    long[] counts = null;
    String noAnswer = null;
    try {
      counts = reader.counts(starts[from], starts[to - 1] + windowMillis, windowMillis);
    } catch (IOException | RuntimeException e) {
      noAnswer = e.getMessage();
    }
    for (int k = from; k < to; k++) {
      long s = starts[k];
      long e = s + windowMillis;
      Verdict v = Verdict.judge(backend, s, e, expected.count(s, e), rows.rows().get(s),
          counts == null ? null : counts[k - from], noAnswer, !settings.continuous() || rows.isFinal());
      if (v.status() == Status.PENDING && ledgerError != null && counts != null) {
        v = v.with(Status.PENDING, v.detail() + " (the ledger could not be read: " + ledgerError + ")");
      }
      last[k] = v;
      if (firstCheck[k] == 0) {
        firstCheck[k] = now;
      }
      boolean isFinal = switch (v.status()) {
        case OK, REJECTED -> true;
        case MISSING, DUPLICATE, REPLAYED -> !settings.continuous() || now >= deadline(k);
        case PENDING -> now >= deadline(k);
      };
      if (isFinal) {
        Drill drill = drill(v);
        v = ReplayRule.judge(v, drill, replays, firstId(v), endId(v));
        settled[k] = true;
        open--;
        missingLines += v.missingLines();
        duplicateLines += v.duplicateLines();
        replayedLines += v.replayedLines();
        if (v.status() == Status.PENDING) {
          v = v.with(Status.PENDING, v.detail() + " (still pending after " + settings.maxWait().toSeconds()
              + " s of retries)");
        }
        out.add(new Result(v, drill));
      }
    }
  }

  /** The window's first expected sequence id. */
  private long firstId(Verdict v) {
    return firstIndex + expected.countBefore(v.windowStartMillis());
  }

  /** One past the window's last expected sequence id. */
  private long endId(Verdict v) {
    return firstIndex + expected.countBefore(v.windowEndMillis());
  }

  private Drill drill(Verdict v) {
    if (settings.drill() == 0 || (v.status() != Status.MISSING && v.status() != Status.DUPLICATE)) {
      return null;
    }
    long first = firstId(v);
    long end = endId(v);
    long read = Math.max(v.observed(), v.expected()) + 1;
    if (read > MAX_DRILL_READ) {
      return Drill.impossible("the window holds " + v.observed() + " lines, more than the " + MAX_DRILL_READ
          + " a drill-down reads");
    }
    try {
      List<Long> ids = reader.sequenceIds(v.windowStartMillis(), v.windowEndMillis(), (int) read);
      Replays r = replays;
      return Drill.of(first, end, ids, idsFromNanos, settings.drill(), r.isEmpty() ? null : r::contains);
    } catch (IOException | RuntimeException e) {
      return Drill.impossible("the backend did not list the window's ids: " + e.getMessage());
    }
  }
}
