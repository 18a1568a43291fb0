package io.logbench.verify;

import io.logbench.config.Durations;
import io.logbench.count.CountReader;
import io.logbench.count.LineIds;
import io.logbench.ledger.LedgerEntry;
import io.logbench.replay.Replays;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.verify.Verdict.Status;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks one backend's windows: each window is due {@code settle} after its end; every {@link
 * #step} counts all due, unsettled windows with one {@link CountReader#counts} call per contiguous
 * run of them (the reader splits to fit its limits), reads the ledger, judges each window, and
 * returns the verdicts that became final, with a drill-down for MISSING and DUPLICATE ones. Windows
 * may be a whole multiple of the ledger's: each one's ledger row is then the sum of the rows inside
 * it ({@link LedgerRollup}).
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
  private final LedgerRollup rollup;
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
  private long maxDrillRead = MAX_DRILL_READ;
  private long missingLines;
  private long duplicateLines;
  private long replayedLines;
  private ReplayView replayView = ReplayView.none();
  /** The restore records as of the current {@link #step}. */
  private Replays replays = Replays.none();

  /** A checker of windows of the ledger's own size. */
  public BackendChecker(String backend, CountReader reader, List<Long> starts, long windowMillis,
      ExpectedCounts expected, long firstIndex, LedgerView ledger, VerifySettings settings, boolean idsFromNanos) {
    this(backend, reader, starts, windowMillis, windowMillis, expected, firstIndex, ledger, settings, idsFromNanos);
  }

  /**
   * @param starts window starts, ascending, each {@code windowMillis} after the one before
   * @param ledgerWindowMillis the ledger's window; {@code windowMillis} is a whole multiple of it,
   *     and each window's ledger row is the sum of the rows inside ({@link LedgerRollup})
   * @param firstIndex the plan's first index: sequence id of the run's first line
   * @param idsFromNanos the reader's ids are nanosecond offsets ({@code seq mod 999,999})
   */
  public BackendChecker(String backend, CountReader reader, List<Long> starts, long windowMillis,
      long ledgerWindowMillis, ExpectedCounts expected, long firstIndex, LedgerView ledger, VerifySettings settings,
      boolean idsFromNanos) {
    if (ledgerWindowMillis <= 0 || windowMillis % ledgerWindowMillis != 0) {
      throw new IllegalArgumentException("Windows of " + windowMillis + " ms are not a whole number of the ledger's "
          + ledgerWindowMillis + " ms windows.");
    }
    this.backend = backend;
    this.reader = reader;
    this.starts = starts.stream().mapToLong(Long::longValue).toArray();
    for (int k = 1; k < this.starts.length; k++) {
      if (this.starts[k] - this.starts[k - 1] != windowMillis) {
        throw new IllegalArgumentException("Window starts must be consecutive windows of " + windowMillis + " ms.");
      }
    }
    this.windowMillis = windowMillis;
    this.rollup = new LedgerRollup(ledgerWindowMillis);
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

  /** Reads at most {@code lines} ids per drill-down instead of {@value #MAX_DRILL_READ} (for tests). */
  BackendChecker maxDrillRead(long lines) {
    this.maxDrillRead = lines;
    return this;
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
      LedgerRollup.Window ledgerWindow = rollup.window(backend, s, e, rows.rows(), expected);
      Verdict v = Verdict.judge(backend, s, e, expected.count(s, e), ledgerWindow,
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
        case LOST -> true; // a canary's spot checks only; never judged here
      };
      if (isFinal) {
        Drill drill = drill(v, rows.rows());
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
    return firstIndex + expected.indexBefore(v.windowStartMillis());
  }

  /** One past the window's last expected sequence id. */
  private long endId(Verdict v) {
    return firstIndex + expected.indexBefore(v.windowEndMillis());
  }

  /**
   * The drill-down of a MISSING or DUPLICATE window: its ids read back and compared with its
   * expected range. A window too big to read whole (more than {@value #MAX_DRILL_READ} lines, or
   * more than 999,999 when ids come from nanosecond offsets) that covers several ledger windows is
   * narrowed first: its ledger windows are counted (one count call) and only those whose count
   * differs from their ledger row are read.
   */
  private Drill drill(Verdict v, Map<Long, LedgerEntry> rows) {
    if (settings.drill() == 0 || (v.status() != Status.MISSING && v.status() != Status.DUPLICATE)) {
      return null;
    }
    long s = v.windowStartMillis();
    long e = v.windowEndMillis();
    String tooBig = tooBig(s, e, Math.max(v.observed(), v.expected()));
    if (tooBig == null) {
      return drillRange(s, e, Math.max(v.observed(), v.expected()));
    }
    if (e - s == rollup.ledgerWindowMillis()) {
      return Drill.impossible(tooBig);
    }
    return drillLedgerWindows(s, e, rows, tooBig);
  }

  /** Why {@code [start, end)}, holding {@code lines}, cannot be drilled in one read; null when it can. */
  private String tooBig(long start, long end, long lines) {
    if (lines + 1 > maxDrillRead) {
      return "the window holds " + lines + " lines, more than the " + maxDrillRead + " a drill-down reads";
    }
    long size = expected.count(start, end);
    if (idsFromNanos && size > LineIds.MODULUS) {
      return "the window expects " + size + " lines, more than " + LineIds.MODULUS
          + ", so ids read from nanosecond offsets cannot be mapped back to sequence ids";
    }
    return null;
  }

  /** Reads the ids of {@code [start, end)} (at most {@code lines + 1}) and compares them with its range. */
  private Drill drillRange(long start, long end, long lines) {
    long first = firstIndex + expected.indexBefore(start);
    long last = firstIndex + expected.indexBefore(end);
    try {
      List<Long> ids = reader.sequenceIds(start, end, (int) Math.min(maxDrillRead, lines + 1));
      Replays r = replays;
      return Drill.of(first, last, ids, idsFromNanos, settings.drill(), r.isEmpty() ? null : r::contains);
    } catch (IOException | RuntimeException ex) {
      return Drill.impossible("the backend did not list the window's ids: " + ex.getMessage());
    }
  }

  /**
   * The drill-down of a window too big to read whole, from its ledger windows whose count differs
   * from their ledger row; a loss and a duplicate that cancel out within one ledger window are
   * not seen, which the note says.
   */
  private Drill drillLedgerWindows(long start, long end, Map<Long, LedgerEntry> rows, String tooBig) {
    long fine = rollup.ledgerWindowMillis();
    long[] counts;
    try {
      counts = reader.counts(start, end, fine);
    } catch (IOException | RuntimeException ex) {
      return Drill.impossible(tooBig + "; counting its ledger windows failed: " + ex.getMessage());
    }
    int limit = settings.drill();
    List<Long> missing = new ArrayList<>();
    long missingTotal = 0;
    Map<Long, Integer> duplicates = new TreeMap<>();
    List<Long> strangers = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    int differing = 0;
    int drilled = 0;
    long read = 0;
    for (int j = 0; j < counts.length; j++) {
      long s = start + j * fine;
      LedgerEntry row = rows.get(s);
      long acked = row == null ? 0 : row.acked();
      if (counts[j] == acked) {
        continue;
      }
      differing++;
      long lines = Math.max(counts[j], expected.count(s, s + fine));
      if (read + lines + 1 > maxDrillRead) {
        continue;
      }
      read += lines + 1;
      drilled++;
      String partTooBig = tooBig(s, s + fine, lines);
      Drill d = partTooBig != null ? Drill.impossible(partTooBig) : drillRange(s, s + fine, lines);
      missingTotal += d.missingTotal();
      d.missing().stream().limit(Math.max(0, limit - missing.size())).forEach(missing::add);
      d.duplicates().forEach((id, n) -> {
        if (duplicates.size() < limit) {
          duplicates.put(id, n);
        }
      });
      d.strangers().stream().limit(Math.max(0, limit - strangers.size())).forEach(strangers::add);
      if (!d.note().isEmpty()) {
        notes.add(Instant.ofEpochMilli(s) + ": " + d.note());
      }
    }
    StringBuilder note = new StringBuilder(tooBig).append("; listed the ids of the ").append(drilled)
        .append(" ledger window(s) of ").append(Durations.format(Duration.ofMillis(fine)))
        .append(" whose count differs from the ledger");
    if (drilled < differing) {
      note.append(" (").append(differing - drilled).append(" more were not read: over ").append(maxDrillRead)
          .append(" lines)");
    }
    note.append("; a loss and a duplicate within one ledger window cancel out and are not listed");
    notes.forEach(n -> note.append("; ").append(n));
    return new Drill(missing, missingTotal, duplicates, strangers, note.toString());
  }
}
