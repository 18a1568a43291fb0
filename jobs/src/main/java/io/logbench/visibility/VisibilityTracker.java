package io.logbench.visibility;

import io.logbench.count.LineIds;
import io.logbench.count.VisibilityProbe;
import io.logbench.count.VisibilityProbe.Reach;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.LatencyHistogram;
import io.logbench.sink.RunContext;
import io.logbench.sink.VisibilitySettings;
import io.logbench.sink.WindowGrid;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The visibility polls of one backend, without Flink and without I/O: {@link #offer} takes each
 * outcome (a sampled batch is queued), {@link #startRound} says what the next poll round asks the
 * backend's {@link VisibilityProbe} (every pending sample in one request, at most {@link
 * VisibilityProbe#maxSamples} of the oldest, and after {@link #endOfInput} the run's count), the
 * answers come back through {@link #samplesCounted} and {@link #runCounted} (or their failures),
 * and {@link #finishRound} drops the samples past the timeout and says when everything is {@link
 * #done}. Outcomes come on the operator's task thread and rounds and answers on its visibility
 * thread, so every method that reads or changes the polls' state holds this tracker's lock (one
 * uncontended lock an outcome); the metric readers ({@link #pendingSamples}, {@link
 * #fromAckMicros}, {@link #fromScheduleMicros}) take none.
 *
 * <p>A sample is visible when its count reaches what the probe's {@link Reach} makes of it: its
 * line count ({@link Reach#LINES}, {@link Reach#NANOSECONDS}), or for {@link Reach#MILLISECONDS}
 * every line of the run in its milliseconds less the lines of those milliseconds whose batches
 * were answered but not acknowledged (failed, partial, aborted: they will never be counted).
 * {@link Reach#NANOSECONDS} probes count the interval from the sample's first line's nanosecond
 * to its last's, which holds no other line of the run unless {@code seq mod 999,999} wraps around
 * next to the batch within one millisecond (about one batch in 4,000 at 100k lines/s and 100 lines
 * a batch; never at one line a millisecond or fewer): such
 * a batch is not sampled.
 *
 * <p>Times are measured to the answer of the poll that found the lines: an upper bound, at most
 * one poll interval plus one read late.
 */
public final class VisibilityTracker {

  /** A sampled batch waiting to be seen. */
  private static final class Sample {
    final VisibilityProbe.Sample lines;
    final long scheduledNanos;
    final long answerNanos;
    /** For {@link Reach#MILLISECONDS}: the run's lines in the sample's milliseconds, {@code [from, to)}. */
    final long seqFrom;
    final long seqTo;
    /** For {@link Reach#MILLISECONDS}: lines of {@code [seqFrom, seqTo)} never acknowledged. */
    long unacked;

    Sample(VisibilityProbe.Sample lines, long scheduledNanos, long answerNanos, long seqFrom, long seqTo) {
      this.lines = lines;
      this.scheduledNanos = scheduledNanos;
      this.answerNanos = answerNanos;
      this.seqFrom = seqFrom;
      this.seqTo = seqTo;
    }
  }

  /** What one poll round asks: the samples to count (oldest first) and whether to count the run. */
  public static final class Round {
    private final List<Sample> asked;
    private final boolean countRun;

    private Round(List<Sample> asked, boolean countRun) {
      this.asked = asked;
      this.countRun = countRun;
    }

    /** The samples to count, in the order their counts must come back. */
    public List<VisibilityProbe.Sample> samples() {
      List<VisibilityProbe.Sample> out = new ArrayList<>(asked.size());
      asked.forEach(s -> out.add(s.lines));
      return out;
    }

    /** Whether to count the run's lines too ({@link #runSpan}). */
    public boolean countRun() {
      return countRun;
    }
  }

  /** The most outcomes not acknowledged in full kept to correct {@link Reach#MILLISECONDS} samples. */
  static final int SHORTFALLS_KEPT = 4_096;

  private final String backend;
  private final Reach reach;
  private final int maxSamples;
  private final RunContext run;
  private final VisibilitySettings settings;
  private final LongSupplier clockNanos;
  private final long spanFrom;
  private final long spanTo;
  private final long windowMillis;

  private final List<Sample> pending = new ArrayList<>();
  /** {firstSeq, lines, unacked} of recent outcomes not acknowledged in full (MILLISECONDS only). */
  private final ArrayDeque<long[]> shortfalls = new ArrayDeque<>();
  private volatile int pendingCount;
  private long acked;
  private long sampled;
  private long endNanos;
  private volatile boolean done;
  /** The end-of-run count has settled (reached the acked lines, or timed out). */
  private boolean runCounted;
  private long visible;
  private long notVisible;
  private long polls;
  private long pollErrors;
  // recorded under the tracker's lock, copied by metric reporters: guarded by themselves
  private final LatencyHistogram fromAck = new LatencyHistogram();
  private final LatencyHistogram fromSchedule = new LatencyHistogram();
  private long lastVisibleNanos;
  private String lastLineNote = "";
  private long lastCount = -1;

  /**
   * @param reach what the backend's probe counts ({@link VisibilityProbe#reach})
   * @param maxSamples the most samples one request takes ({@link VisibilityProbe#maxSamples})
   * @param clockNanos epoch nanoseconds, the clock the outcomes' times are in
   * @param span the run's first line time and last line time + 1 ms
   * @param grid the run's windows, for the end-of-run count
   */
  public VisibilityTracker(String backend, Reach reach, int maxSamples, RunContext run, VisibilitySettings settings,
      LongSupplier clockNanos, long[] span, WindowGrid grid) {
    if (maxSamples < 1) {
      throw new IllegalArgumentException("A probe of backend " + backend + " must take at least one sample a"
          + " request, not " + maxSamples + ".");
    }
    this.backend = backend;
    this.reach = reach;
    this.maxSamples = maxSamples;
    this.run = run;
    this.settings = settings;
    this.clockNanos = clockNanos;
    this.windowMillis = grid.sizeMillis();
    this.spanFrom = grid.windowStart(span[0]);
    this.spanTo = span[1] <= span[0] ? spanFrom : grid.windowStart(span[1] - 1) + windowMillis;
  }

  /**
   * Takes one outcome: counts its acked lines and queues it if sampled.
   *
   * @return whether it was sampled
   */
  public synchronized boolean offer(BatchOutcome o) {
    acked += o.acked();
    if (reach == Reach.MILLISECONDS && o.acked() < o.lines()) {
      shortfall(o.firstSeq(), o.lines(), o.lines() - o.acked());
    }
    if (o.status() != BatchOutcome.Status.ACKED || o.lines() <= 0 || !settings.sampled(o.batchId())) {
      return false;
    }
    long first = o.firstSeq();
    long last = first + o.lines() - 1;
    long fromMillis = run.lineMillis(first);
    long toMillis = run.lineMillis(last);
    if (reach == Reach.NANOSECONDS && !nanosecondsAlone(run, first, last)) {
      return false;
    }
    VisibilityProbe.Sample lines = new VisibilityProbe.Sample(first, o.lines(),
        LineBatch.distinctNanos(fromMillis, first), LineBatch.distinctNanos(toMillis, last));
    Sample s = reach == Reach.MILLISECONDS
        ? new Sample(lines, o.scheduledNanos(), o.scheduledNanos() + o.latencyNanos(),
            run.firstSeqAtOrAfter(lines.fromMillis()), run.firstSeqAtOrAfter(lines.toMillis()))
        : new Sample(lines, o.scheduledNanos(), o.scheduledNanos() + o.latencyNanos(), first, last + 1);
    if (reach == Reach.MILLISECONDS) {
      for (long[] f : shortfalls) {
        s.unacked += overlap(s, f);
      }
    }
    pending.add(s);
    pendingCount = pending.size();
    sampled++;
    return true;
  }

  private void shortfall(long firstSeq, int lines, long unacked) {
    long[] f = {firstSeq, lines, unacked};
    if (shortfalls.size() == SHORTFALLS_KEPT) {
      shortfalls.pollFirst();
    }
    shortfalls.addLast(f);
    for (Sample s : pending) {
      s.unacked += overlap(s, f);
    }
  }

  /** The lines of shortfall {@code f} that may lie in {@code s}'s milliseconds. */
  private static long overlap(Sample s, long[] f) {
    long common = Math.min(f[0] + f[1], s.seqTo) - Math.max(f[0], s.seqFrom);
    return common <= 0 ? 0 : Math.min(common, f[2]);
  }

  /**
   * Whether the nanosecond interval of lines {@code first..last} holds no other line of {@code
   * run}. Stamps are {@code ms * 1e6 + 1 + seq mod 999,999} ({@link LineBatch#distinctNanos}) and
   * times never decrease with {@code seq}, so they rise with {@code seq} except where a multiple
   * of the modulus falls inside one millisecond: the interval is clean unless that happens in the
   * batch, or between it and the other lines of its first or last millisecond.
   */
  static boolean nanosecondsAlone(RunContext run, long first, long last) {
    long m = LineIds.MODULUS;
    long firstMillis = run.lineMillis(first);
    long lastMillis = run.lineMillis(last);
    long wrap = first - Math.floorMod(first, m); // the last multiple at or before first
    if (wrap - 1 >= run.firstIndex() && run.lineMillis(wrap - 1) == firstMillis) {
      return false; // earlier lines of the first millisecond carry offsets above first's
    }
    for (long c = wrap + m; c <= last; c += m) {
      if (run.lineMillis(c - 1) == run.lineMillis(c)) {
        return false; // the batch's own offsets wrap inside a millisecond
      }
    }
    long next = wrap + m * (1 + (last - wrap) / m); // the first multiple after last
    return next >= run.endSeq() || run.lineMillis(next) != lastMillis;
  }

  /** No outcome comes after this one: the rounds now also count the run ({@link Round#countRun}). */
  public synchronized void endOfInput() {
    endNanos = clockNanos.getAsLong();
  }

  /** Whether every sample is settled and the end-of-run count is done (after {@link #endOfInput}). */
  public boolean done() {
    return done;
  }

  /** Samples queued, being polled or not (any thread). */
  public long pendingSamples() {
    return pendingCount;
  }

  /** What the next round asks; a round with no sample and no run count asks nothing. */
  public synchronized Round startRound() {
    List<Sample> asked = new ArrayList<>(pending.subList(0, Math.min(pending.size(), maxSamples)));
    if (!asked.isEmpty()) {
      polls++;
    }
    return new Round(asked, endNanos != 0 && !runCounted && !done);
  }

  /** The run's windows to count: {@code [from, to)} and the window size, epoch ms. */
  public long[] runSpan() {
    return new long[] {spanFrom, spanTo, windowMillis};
  }

  /** The probe's counts of {@code round}'s samples, in order. */
  public synchronized void samplesCounted(Round round, long[] counts) {
    if (counts.length != round.asked.size()) {
      samplesFailed(round);
      return;
    }
    long now = clockNanos.getAsLong();
    for (int k = 0; k < counts.length; k++) {
      Sample s = round.asked.get(k);
      if (counts[k] >= needed(s) && pending.remove(s)) {
        visible++;
        synchronized (fromAck) {
          fromAck.record((now - s.answerNanos) / 1_000);
        }
        synchronized (fromSchedule) {
          fromSchedule.record((now - s.scheduledNanos) / 1_000);
        }
      }
    }
    pendingCount = pending.size();
  }

  /** The lines a sample's count must reach. */
  private long needed(Sample s) {
    return reach == Reach.MILLISECONDS ? s.seqTo - s.seqFrom - s.unacked : s.lines.lines();
  }

  /** The probe could not count {@code round}'s samples: they stay pending. */
  public synchronized void samplesFailed(Round round) {
    pollErrors++;
  }

  /** The probe's count of the run's lines ({@link #runSpan}). */
  public synchronized void runCounted(long total) {
    long want = acked;
    if (want == 0) {
      finish(0, "no line was acknowledged");
      return;
    }
    long now = clockNanos.getAsLong();
    if (total >= want) {
      finish(now, "");
      return;
    }
    lastCount = Math.max(lastCount, total);
    runTimeout(now, want);
  }

  /** The probe could not count the run's lines. */
  public synchronized void runCountFailed() {
    pollErrors++;
    if (acked == 0) {
      finish(0, "no line was acknowledged");
      return;
    }
    runTimeout(clockNanos.getAsLong(), acked);
  }

  private void runTimeout(long now, long want) {
    if (now - endNanos > settings.timeout().toNanos()) {
      finish(0, String.format(Locale.ROOT, "the run's count did not reach the %,d acknowledged lines within %d s"
          + " of the run's end (last count: %s)", want, settings.timeout().toSeconds(),
          lastCount < 0 ? "none answered" : String.format(Locale.ROOT, "%,d", lastCount)));
    }
  }

  private void finish(long lastVisible, String note) {
    lastVisibleNanos = lastVisible;
    lastLineNote = note;
    runCounted = true;
  }

  /**
   * Ends a round once its answers are in: a sample still pending past the timeout from its answer
   * counts as not visible; after the end of input, everything settled makes {@link #done}.
   */
  public synchronized void finishRound() {
    long now = clockNanos.getAsLong();
    long timeoutNanos = settings.timeout().toNanos();
    pending.removeIf(s -> {
      if (now - s.answerNanos > timeoutNanos) {
        notVisible++;
        return true;
      }
      return false;
    });
    pendingCount = pending.size();
    if (endNanos != 0 && runCounted && pending.isEmpty()) {
      done = true;
    }
  }

  /** What was found so far (complete once {@link #done}). */
  public synchronized VisibilityReport report() {
    return new VisibilityReport(backend, settings.sample(), sampled, visible, notVisible, polls, pollErrors,
        fromAckMicros(), fromScheduleMicros(), acked, lastVisibleNanos, lastLineNote);
  }

  /** Microseconds from answer to visible, so far (any thread, for metrics). */
  public LatencyHistogram fromAckMicros() {
    synchronized (fromAck) {
      return fromAck.copy();
    }
  }

  /** Microseconds from schedule to visible, so far (any thread, for metrics). */
  public LatencyHistogram fromScheduleMicros() {
    synchronized (fromSchedule) {
      return fromSchedule.copy();
    }
  }
}
