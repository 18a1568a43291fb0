package io.logbench.canary;

import io.logbench.config.Durations;
import io.logbench.count.LineIds;
import io.logbench.ledger.LedgerEntry;
import io.logbench.replay.Replays;
import io.logbench.verify.Drill;
import io.logbench.verify.ReplayRule;
import io.logbench.verify.Verdict;
import io.logbench.verify.Verdict.Status;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Checks one backend of a canary, window after window, for as long as it runs, in rounds: {@link
 * #plan} says what is due (windows {@code settle} after their end, windows that do not match yet
 * every {@code recheck}, windows verified earlier at their spot-check ages), {@link Round#run}
 * counts them and reads ids back (the only part that waits for the backend, so it runs on a
 * thread of its own), and {@link #apply} takes the results in, returning the ones that became
 * final.
 *
 * <p>A window's verdict is judged as {@code verify --continuous} judges one ({@link
 * Verdict#judge}, {@link ReplayRule} for copies a restore sent again): OK and REJECTED are final at
 * once, MISSING, DUPLICATE and PENDING only when they persist until {@code maxWait} after the
 * window's first count. A window whose schedule puts no line in it (a gap, while the canary was
 * down) and that has no ledger row is not checked at all. Windows found OK or REPLAYED are kept,
 * with what they held, for {@code retention}: each is counted again once at every spot age, and
 * {@code olderPerHour} older ones an hour at random; a window holding fewer lines than at its
 * verdict, in two counts {@code recheck} apart, is LOST, with its missing sequence ids, and holds
 * that many from then on (a loss is told once).
 *
 * <p>The state is the open windows only, plus the verified windows of the retention (two longs
 * each) and a few counters; {@link #snapshot} and {@link #restore} write and read it for Flink's
 * checkpoints. Not thread-safe: {@link #offer}, {@link #plan} and {@link #apply} run on the task's
 * thread, and a {@link Round} carries copies of what it needs.
 */
public final class CanaryChecker {

  /** Most ids read back for one drill-down. */
  static final int MAX_DRILL_READ = 2_000_000;
  /** Most spot checks in one round, so a canary started on a long retention catches up in steps. */
  static final int MAX_SPOTS_PER_ROUND = 1_000;
  /** The age label of the windows drawn at random beyond the last spot age. */
  public static final String OLDER = "older";

  private static final int STATE_VERSION = 1;

  private final String backend;
  private final CanarySettings settings;
  private final CanaryGrid grid;
  private final long windowMillis;
  /** The first window start the grid has not opened yet: windows before it are final or gaps. */
  private long nextGridStart;
  private final TreeMap<Long, Open> open = new TreeMap<>();
  private StoredWindows stored = new StoredWindows();
  /** Per spot age: the newest window start counted at that age (Long.MIN_VALUE: none yet). */
  private long[] spotCursor;
  private long nextOlderAt;
  private final List<Retry> retries = new ArrayList<>();
  private final long[] windowsByStatus = new long[Status.values().length];
  private final long[] lines = new long[Lines.values().length];
  private long spotChecks;
  private long spotLost;
  private long newestSettledEnd;
  private long lateRows;
  private long gapWindows;
  private long countErrors;

  /** Line totals of the final verdicts (and spot checks), for metrics. */
  public enum Lines {
    EXPECTED, ACKED, OBSERVED, MISSING, DUPLICATE, REPLAYED, LOST
  }

  /** A window without a final verdict: its latest ledger row and when it was counted. */
  private static final class Open {
    LedgerEntry row;
    long firstCheck;
    long lastCheck;
  }

  /** A spot check to make again: a difference seen once, or no answer. */
  private record Retry(long start, int age, long heldBefore, int attempt, long atMillis, long dueMillis) {}

  /**
   * A checker that starts with the window of {@code firstWindowStart} (a start of the grid).
   *
   * @param nowMillis the time it starts, from which the first older window is drawn an interval later
   */
  public CanaryChecker(String backend, CanarySettings settings, CanaryGrid grid, long firstWindowStart,
      long nowMillis) {
    this.backend = backend;
    this.settings = settings;
    this.grid = grid;
    this.windowMillis = grid.windowMillis();
    this.nextGridStart = firstWindowStart;
    this.spotCursor = new long[settings.spotAges().size()];
    java.util.Arrays.fill(spotCursor, Long.MIN_VALUE);
    this.nextOlderAt = nowMillis + olderInterval();
  }

  private long olderInterval() {
    return settings.olderPerHour() == 0 ? Long.MAX_VALUE / 4 : 3_600_000L / settings.olderPerHour();
  }

  private long due(long start) {
    return start + windowMillis + settings.settle().toMillis();
  }

  /** Takes a ledger row (an upsert of its window); a row of a window already final is counted as late. */
  public void offer(LedgerEntry row) {
    long s = row.windowStartMillis();
    Open o = open.get(s);
    if (o == null) {
      if (s < nextGridStart) {
        lateRows++;
        return;
      }
      o = new Open();
      open.put(s, o);
    }
    o.row = row;
  }

  /** Opens every window of the grid that has ended by {@code now}, but those of gaps without a row. */
  private void openEnded(long now) {
    while (nextGridStart + windowMillis <= now) {
      long s = nextGridStart;
      if (!open.containsKey(s)) {
        if (grid.window(s).expected() > 0) {
          open.put(s, new Open());
        } else {
          gapWindows++;
        }
      }
      nextGridStart += windowMillis;
    }
  }

  /**
   * What is due at {@code now}, or null when nothing is. Changes nothing but the windows the grid
   * opens; the round's results change the rest, in {@link #apply}.
   */
  public Round plan(long now) {
    openEnded(now);
    List<FreshJob> fresh = new ArrayList<>();
    for (Map.Entry<Long, Open> e : open.entrySet()) {
      long s = e.getKey();
      Open o = e.getValue();
      if (due(s) > now) {
        break;
      }
      if (o.lastCheck == 0 || o.lastCheck + settings.recheck().toMillis() <= now) {
        fresh.add(new FreshJob(grid.window(s), o.row, o.firstCheck));
      }
    }
    List<SpotJob> spots = new ArrayList<>();
    for (Retry r : retries) {
      if (r.atMillis() <= now && spots.size() < MAX_SPOTS_PER_ROUND) {
        spots.add(new SpotJob(grid.window(r.start()), r.age(), ageLabel(r.age()), r.heldBefore(), r.attempt(),
            r.dueMillis()));
      }
    }
    for (int a = 0; a < spotCursor.length; a++) {
      long age = settings.spotAges().get(a).toMillis();
      for (int i = stored.firstAfter(spotCursor[a]); i < stored.size() && spots.size() < MAX_SPOTS_PER_ROUND; i++) {
        long s = stored.start(i);
        if (s + windowMillis + age > now) {
          break;
        }
        if (!retrying(s, a)) {
          spots.add(new SpotJob(grid.window(s), a, ageLabel(a), stored.held(i), 0, s + windowMillis + age));
        }
      }
    }
    boolean older = false;
    if (now >= nextOlderAt && spots.size() < MAX_SPOTS_PER_ROUND) {
      long oldest = now - settings.retention().toMillis();
      long youngest = now - windowMillis - (spotCursor.length == 0 ? settings.settle().plus(settings.maxWait())
          : settings.spotAges().get(spotCursor.length - 1)).toMillis();
      int from = stored.firstFrom(oldest);
      int to = stored.firstAfter(youngest);
      older = true;
      if (to > from) {
        int i = from + new SplittableRandom(now ^ backend.hashCode()).nextInt(to - from);
        spots.add(new SpotJob(grid.window(stored.start(i)), -1, OLDER, stored.held(i), 0, now));
      }
    }
    if (fresh.isEmpty() && spots.isEmpty() && !older) {
      return null;
    }
    return new Round(backend, settings, grid, now, fresh, spots, older);
  }

  private boolean retrying(long start, int age) {
    for (Retry r : retries) {
      if (r.start() == start && r.age() == age) {
        return true;
      }
    }
    return false;
  }

  private String ageLabel(int age) {
    return age < 0 ? OLDER : Durations.format(settings.spotAges().get(age));
  }

  /** Takes a round's results in; returns those that became final, in the round's order. */
  public List<CanaryRecord> apply(RoundResult result) {
    long now = result.nowMillis();
    List<CanaryRecord> out = new ArrayList<>();
    countErrors += result.countErrors();
    for (FreshResult r : result.fresh()) {
      long s = r.window().start();
      Open o = open.get(s);
      if (o == null) {
        continue;
      }
      if (o.firstCheck == 0) {
        o.firstCheck = now;
      }
      o.lastCheck = now;
      if (!r.isFinal()) {
        continue;
      }
      open.remove(s);
      Verdict v = r.verdict();
      windowsByStatus[v.status().ordinal()]++;
      lines[Lines.EXPECTED.ordinal()] += v.expected();
      lines[Lines.ACKED.ordinal()] += v.acked();
      lines[Lines.OBSERVED.ordinal()] += Math.max(0, v.observed());
      lines[Lines.MISSING.ordinal()] += v.missingLines();
      lines[Lines.DUPLICATE.ordinal()] += v.duplicateLines();
      lines[Lines.REPLAYED.ordinal()] += v.replayedLines();
      if (v.status() == Status.OK || v.status() == Status.REPLAYED) {
        stored.put(s, v.observed());
      }
      newestSettledEnd = Math.max(newestSettledEnd, r.window().end());
      out.add(new CanaryRecord(backend, CanaryRecord.Check.WINDOW, "", r.window(), v, -1, r.drill(), now, r.row()));
    }
    for (SpotResult r : result.spots()) {
      SpotJob job = r.job();
      long s = job.window().start();
      if (job.age() >= 0) {
        spotCursor[job.age()] = Math.max(spotCursor[job.age()], s);
      }
      retries.removeIf(x -> x.start() == s && x.age() == job.age());
      if (r.verdict() == null) {
        // a difference seen once, or no answer before the deadline: count it again after a recheck
        retries.add(new Retry(s, job.age(), job.heldBefore(), job.attempt() + 1,
            now + settings.recheck().toMillis(), job.dueMillis()));
        continue;
      }
      Verdict v = r.verdict();
      spotChecks++;
      if (v.status() == Status.LOST) {
        spotLost++;
        lines[Lines.LOST.ordinal()] += job.heldBefore() - v.observed();
      }
      if (v.observed() >= 0 && v.status() != Status.PENDING && stored.heldBy(s) >= 0) {
        stored.put(s, v.observed()); // a loss (or a late copy) is told once
      }
      out.add(new CanaryRecord(backend, CanaryRecord.Check.SPOT, job.ageLabel(), job.window(), v, job.heldBefore(),
          r.drill(), now, null));
    }
    if (result.older()) {
      nextOlderAt = now + olderInterval();
    }
    stored.dropBefore(now - settings.retention().toMillis());
    return out;
  }

  /** When the next round has something to do (at least {@code now}). */
  public long nextWake(long now) {
    long wake = due(nextGridStart);
    for (Map.Entry<Long, Open> e : open.entrySet()) {
      Open o = e.getValue();
      long at = o.lastCheck == 0 ? due(e.getKey()) : o.lastCheck + settings.recheck().toMillis();
      wake = Math.min(wake, at);
      if (due(e.getKey()) > now) {
        break; // later windows are due later still
      }
    }
    for (Retry r : retries) {
      wake = Math.min(wake, r.atMillis());
    }
    for (int a = 0; a < spotCursor.length; a++) {
      int i = stored.firstAfter(spotCursor[a]);
      if (i < stored.size()) {
        wake = Math.min(wake, stored.start(i) + windowMillis + settings.spotAges().get(a).toMillis());
      }
    }
    wake = Math.min(wake, nextOlderAt);
    return Math.max(wake, now);
  }

  /** Final windows by status, since the run started. */
  public long windows(Status status) {
    return windowsByStatus[status.ordinal()];
  }

  /** Lines of the final verdicts (LOST: of spot checks), since the run started. */
  public long lines(Lines which) {
    return lines[which.ordinal()];
  }

  /** Windows without a final verdict yet. */
  public int openWindows() {
    return open.size();
  }

  /** Spot checks made, and those that found lines lost. */
  public long spotChecks() {
    return spotChecks;
  }

  public long spotLost() {
    return spotLost;
  }

  /** End (epoch ms) of the newest window with a final verdict; 0 before the first. */
  public long newestSettledEnd() {
    return newestSettledEnd;
  }

  /** Ledger rows that came after their window was final. */
  public long lateRows() {
    return lateRows;
  }

  /** Windows skipped as gaps (no line scheduled, no row). */
  public long gapWindows() {
    return gapWindows;
  }

  /** Count requests that failed (the windows stayed open). */
  public long countErrors() {
    return countErrors;
  }

  /** Verified windows kept for spot checks. */
  public int storedWindows() {
    return stored.size();
  }

  /** The state, for a checkpoint. */
  public byte[] snapshot() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(STATE_VERSION);
      out.writeLong(nextGridStart);
      out.writeInt(open.size());
      for (Map.Entry<Long, Open> e : open.entrySet()) {
        out.writeLong(e.getKey());
        Open o = e.getValue();
        out.writeLong(o.firstCheck);
        out.writeLong(o.lastCheck);
        out.writeBoolean(o.row != null);
        if (o.row != null) {
          writeRow(out, o.row);
        }
      }
      stored.write(out);
      out.writeInt(spotCursor.length);
      for (long c : spotCursor) {
        out.writeLong(c);
      }
      out.writeLong(nextOlderAt);
      out.writeInt(retries.size());
      for (Retry r : retries) {
        out.writeLong(r.start());
        out.writeInt(r.age());
        out.writeLong(r.heldBefore());
        out.writeInt(r.attempt());
        out.writeLong(r.atMillis());
        out.writeLong(r.dueMillis());
      }
      out.writeInt(windowsByStatus.length);
      for (long n : windowsByStatus) {
        out.writeLong(n);
      }
      out.writeInt(lines.length);
      for (long n : lines) {
        out.writeLong(n);
      }
      out.writeLong(spotChecks);
      out.writeLong(spotLost);
      out.writeLong(newestSettledEnd);
      out.writeLong(lateRows);
      out.writeLong(gapWindows);
      out.writeLong(countErrors);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * A checker of {@code backend} with the state of {@link #snapshot}; spot ages added since are
   * counted from the newest window, so a changed setting does not check the whole retention at once.
   */
  public static CanaryChecker restore(byte[] state, String backend, CanarySettings settings, CanaryGrid grid,
      long nowMillis) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
      int version = in.readInt();
      if (version != STATE_VERSION) {
        throw new IllegalStateException("The canary's checkpointed state of backend " + backend + " is of version "
            + version + "; this logbench reads version " + STATE_VERSION + ".");
      }
      CanaryChecker c = new CanaryChecker(backend, settings, grid, in.readLong(), nowMillis);
      int n = in.readInt();
      for (int i = 0; i < n; i++) {
        long s = in.readLong();
        Open o = new Open();
        o.firstCheck = in.readLong();
        o.lastCheck = in.readLong();
        if (in.readBoolean()) {
          o.row = readRow(in, backend, s, s + grid.windowMillis());
        }
        c.open.put(s, o);
      }
      c.stored = StoredWindows.read(in);
      int ages = in.readInt();
      long newest = c.stored.size() == 0 ? Long.MIN_VALUE : c.stored.start(c.stored.size() - 1);
      java.util.Arrays.fill(c.spotCursor, newest);
      for (int a = 0; a < ages; a++) {
        long cursor = in.readLong();
        if (a < c.spotCursor.length) {
          c.spotCursor[a] = cursor;
        }
      }
      c.nextOlderAt = in.readLong();
      int retries = in.readInt();
      for (int i = 0; i < retries; i++) {
        Retry r = new Retry(in.readLong(), in.readInt(), in.readLong(), in.readInt(), in.readLong(), in.readLong());
        if (r.age() < c.spotCursor.length) {
          c.retries.add(r);
        }
      }
      readInto(in, c.windowsByStatus);
      readInto(in, c.lines);
      c.spotChecks = in.readLong();
      c.spotLost = in.readLong();
      c.newestSettledEnd = in.readLong();
      c.lateRows = in.readLong();
      c.gapWindows = in.readLong();
      c.countErrors = in.readLong();
      return c;
    } catch (IOException e) {
      throw new UncheckedIOException("The canary's checkpointed state of backend " + backend + " cannot be read: "
          + e.getMessage(), e);
    }
  }

  private static void readInto(DataInputStream in, long[] into) throws IOException {
    int n = in.readInt();
    for (int i = 0; i < n; i++) {
      long v = in.readLong();
      if (i < into.length) {
        into[i] = v;
      }
    }
  }

  private static void writeRow(DataOutputStream out, LedgerEntry row) throws IOException {
    out.writeLong(row.expected());
    out.writeLong(row.sent());
    out.writeLong(row.acked());
    out.writeInt(row.rejected().size());
    for (Map.Entry<String, Long> r : row.rejected().entrySet()) {
      out.writeUTF(r.getKey());
      out.writeLong(r.getValue());
    }
  }

  private static LedgerEntry readRow(DataInputStream in, String backend, long start, long end) throws IOException {
    long expected = in.readLong();
    long sent = in.readLong();
    long acked = in.readLong();
    int n = in.readInt();
    TreeMap<String, Long> rejected = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      rejected.put(in.readUTF(), in.readLong());
    }
    return new LedgerEntry(backend, start, end, expected, sent, acked, rejected);
  }

  /** A window to count: its latest ledger row (null: none yet) and its first count's time (0: none). */
  record FreshJob(CanaryWindow window, LedgerEntry row, long firstCheck) {}

  /**
   * A window verified earlier to count again.
   *
   * @param age the spot age's index, or -1 for an older window drawn at random
   * @param attempt 0 for the first count; more when a difference (or no answer) is counted again
   * @param dueMillis when it was due, from which it may wait {@code maxWait} for an answer
   */
  record SpotJob(CanaryWindow window, int age, String ageLabel, long heldBefore, int attempt, long dueMillis) {}

  /** A window's count judged, with the row it was judged by; {@code drill} only for a final MISSING or DUPLICATE. */
  record FreshResult(CanaryWindow window, LedgerEntry row, Verdict verdict, Drill drill, boolean isFinal) {}

  /** A spot check's outcome: its verdict, or null to count it again. */
  record SpotResult(SpotJob job, Verdict verdict, Drill drill) {}

  /** What a round found; {@code older} when it drew an older window (or found none to draw). */
  public record RoundResult(long nowMillis, List<FreshResult> fresh, List<SpotResult> spots, boolean older,
      int countErrors) {}

  /**
   * The counts of one round, with copies of everything they need: {@link #run} may run on any
   * thread while the checker takes rows on the task's.
   */
  public static final class Round {

    private final String backend;
    private final CanarySettings settings;
    private final CanaryGrid grid;
    private final long now;
    private final List<FreshJob> fresh;
    private final List<SpotJob> spots;
    private final boolean older;

    Round(String backend, CanarySettings settings, CanaryGrid grid, long now, List<FreshJob> fresh,
        List<SpotJob> spots, boolean older) {
      this.backend = backend;
      this.settings = settings;
      this.grid = grid;
      this.now = now;
      this.fresh = List.copyOf(fresh);
      this.spots = List.copyOf(spots);
      this.older = older;
    }

    /** Windows this round counts for their own verdict. */
    public int freshWindows() {
      return fresh.size();
    }

    /** Windows this round counts again. */
    public int spotWindows() {
      return spots.size();
    }

    /**
     * Counts the round's windows (one request per run of consecutive windows), judges them, and
     * drills into those that are final and MISSING, DUPLICATE or LOST. Never throws for a backend
     * that does not answer: its windows stay open.
     *
     * @param replays the backend's restore records (what restores sent again)
     */
    public RoundResult run(WindowCounter counter, Replays replays) {
      int[] errors = {0};
      List<FreshResult> freshOut = new ArrayList<>();
      for (List<FreshJob> run : consecutive(fresh, j -> j.window().start())) {
        List<CanaryWindow> windows = run.stream().map(FreshJob::window).toList();
        Counted c = count(counter, windows, errors);
        for (int k = 0; k < run.size(); k++) {
          freshOut.add(judge(run.get(k), c.counts == null ? null : c.counts[k], c.error, counter, replays));
        }
      }
      List<SpotResult> spotOut = new ArrayList<>();
      List<SpotJob> sorted = new ArrayList<>(spots);
      sorted.sort((a, b) -> Long.compare(a.window().start(), b.window().start()));
      for (List<SpotJob> run : consecutive(distinct(sorted), j -> j.window().start())) {
        List<CanaryWindow> windows = run.stream().map(SpotJob::window).toList();
        Counted c = count(counter, windows, errors);
        for (int k = 0; k < run.size(); k++) {
          long observed = c.counts == null ? -1 : c.counts[k];
          for (SpotJob job : sorted) {
            if (job.window().start() == run.get(k).window().start()) {
              spotOut.add(spot(job, observed, c.error, counter, replays));
            }
          }
        }
      }
      return new RoundResult(now, freshOut, spotOut, older, errors[0]);
    }

    private record Counted(long[] counts, String error) {}

    private static Counted count(WindowCounter counter, List<CanaryWindow> windows, int[] errors) {
      try {
        long[] counts = counter.counts(windows);
        if (counts.length != windows.size()) {
          throw new IOException("the backend gave " + counts.length + " counts for " + windows.size() + " windows");
        }
        return new Counted(counts, null);
      } catch (IOException | RuntimeException e) {
        errors[0]++;
        return new Counted(null, String.valueOf(e.getMessage()));
      }
    }

    private FreshResult judge(FreshJob job, Long observed, String noAnswer, WindowCounter counter, Replays replays) {
      CanaryWindow w = job.window();
      Verdict v = Verdict.judge(backend, w.start(), w.end(), w.expected(), job.row(), observed, noAnswer, false);
      long due = w.end() + settings.settle().toMillis();
      long deadline = Math.max(due, job.firstCheck() == 0 ? now : job.firstCheck()) + settings.maxWait().toMillis();
      boolean isFinal = switch (v.status()) {
        case OK, REJECTED, LOST -> true;
        case MISSING, DUPLICATE, REPLAYED, PENDING -> now >= deadline;
      };
      if (!isFinal) {
        return new FreshResult(w, job.row(), v, null, false);
      }
      Drill drill = v.status() == Status.MISSING || v.status() == Status.DUPLICATE
          ? drill(w, Math.max(v.observed(), v.expected()), counter, replays) : null;
      v = ReplayRule.judge(v, drill, replays, w.firstSeq(), w.endSeq());
      if (v.status() == Status.PENDING) {
        v = v.with(Status.PENDING, v.detail() + " (still pending after " + settings.maxWait().toSeconds()
            + " s of rechecks)");
      }
      return new FreshResult(w, job.row(), v, drill, true);
    }

    private SpotResult spot(SpotJob job, long observed, String noAnswer, WindowCounter counter, Replays replays) {
      CanaryWindow w = job.window();
      long held = job.heldBefore();
      String at = job.age() < 0 ? "counted again at random at " : "counted again at ";
      String when = at + Durations.format(Duration.ofMillis(Math.max(0, now - w.end()))) + " of age";
      if (observed < 0) {
        if (now < job.dueMillis() + settings.maxWait().toMillis()) {
          return new SpotResult(job, null, null);
        }
        return new SpotResult(job, new Verdict(backend, w.start(), w.end(), w.expected(), held, -1, Status.PENDING,
            Map.of(), "the backend did not answer the spot check (" + job.ageLabel() + ") for "
                + settings.maxWait().toSeconds() + " s: " + noAnswer), null);
      }
      if (observed == held) {
        return new SpotResult(job, new Verdict(backend, w.start(), w.end(), w.expected(), held, observed, Status.OK,
            Map.of(), ""), null);
      }
      if (job.attempt() == 0) {
        return new SpotResult(job, null, null); // a difference is told only when a second count agrees
      }
      Drill drill = drill(w, Math.max(held, w.expected()), counter, replays);
      if (observed < held) {
        return new SpotResult(job, new Verdict(backend, w.start(), w.end(), w.expected(), held, observed, Status.LOST,
            Map.of(), (held - observed) + " line(s) lost after they were stored: the window held " + held
                + " at its verdict, " + observed + " " + when), drill);
      }
      return new SpotResult(job, new Verdict(backend, w.start(), w.end(), w.expected(), held, observed,
          Status.DUPLICATE, Map.of(), (observed - held) + " line(s) more than the window held at its verdict ("
              + held + "), " + when), drill);
    }

    /** The window's ids read back and compared with its sequence range, the gaps' ids not expected. */
    private Drill drill(CanaryWindow w, long lines, WindowCounter counter, Replays replays) {
      if (settings.drill() == 0) {
        return null;
      }
      long size = w.endSeq() - w.firstSeq();
      if (lines + 1 > MAX_DRILL_READ) {
        return Drill.impossible("the window holds " + lines + " lines, more than the " + MAX_DRILL_READ
            + " a drill-down reads");
      }
      if (counter.idsFromNanos() && size > LineIds.MODULUS) {
        return Drill.impossible("the window expects " + size + " lines, more than " + LineIds.MODULUS
            + ", so ids read from nanosecond offsets cannot be mapped back to sequence ids");
      }
      try {
        List<Long> ids = counter.sequenceIds(w, (int) Math.min(MAX_DRILL_READ, 2 * lines + 1));
        return Drill.of(w.firstSeq(), w.endSeq(), ids, counter.idsFromNanos(), settings.drill(),
            replays.isEmpty() ? null : replays::contains, grid::unsent);
      } catch (IOException | RuntimeException e) {
        return Drill.impossible("the backend did not list the window's ids: " + e.getMessage());
      }
    }

    private static List<SpotJob> distinct(List<SpotJob> sorted) {
      List<SpotJob> out = new ArrayList<>();
      for (SpotJob j : sorted) {
        if (out.isEmpty() || out.get(out.size() - 1).window().start() != j.window().start()) {
          out.add(j);
        }
      }
      return out;
    }

    /** Runs of items whose starts follow each other window by window. */
    private <T> List<List<T>> consecutive(List<T> items, java.util.function.ToLongFunction<T> start) {
      List<List<T>> runs = new ArrayList<>();
      List<T> run = new ArrayList<>();
      long next = Long.MIN_VALUE;
      for (T item : items) {
        long s = start.applyAsLong(item);
        if (!run.isEmpty() && s != next) {
          runs.add(run);
          run = new ArrayList<>();
        }
        run.add(item);
        next = s + grid.windowMillis();
      }
      if (!run.isEmpty()) {
        runs.add(run);
      }
      return runs;
    }
  }
}
