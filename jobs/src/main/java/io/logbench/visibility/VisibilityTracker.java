package io.logbench.visibility;

import io.logbench.count.CountReader;
import io.logbench.count.LineIds;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.Capabilities;
import io.logbench.sink.LatencyHistogram;
import io.logbench.sink.RunContext;
import io.logbench.sink.VisibilitySettings;
import io.logbench.sink.WindowGrid;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The visibility polls of one backend, without Flink: {@link #offer} takes each outcome on the
 * task thread (a sampled batch is queued, nothing else is done there), and {@link #poll}, called
 * on one poller thread on a timer, reads the ids of each pending sample's time range back with the
 * backend's reader until every line of the batch is there, for at most the timeout. After {@link
 * #endOfInput}, {@link #poll} also counts the whole run until the count reaches the lines
 * acknowledged, which times the last line visible, and then reports {@link #done}.
 *
 * <p>Times are measured to the answer of the poll that found the lines: an upper bound, at most one
 * poll interval plus one read late.
 */
public final class VisibilityTracker {

  /** A sampled batch waiting to be seen. */
  private static final class Sample {
    final long firstSeq;
    final int lines;
    final long scheduledNanos;
    final long answerNanos;
    long fromMillis;
    long toMillis;

    Sample(long firstSeq, int lines, long scheduledNanos, long answerNanos) {
      this.firstSeq = firstSeq;
      this.lines = lines;
      this.scheduledNanos = scheduledNanos;
      this.answerNanos = answerNanos;
    }
  }

  private final String backend;
  private final CountReader reader;
  private final RunContext run;
  private final boolean idsFromNanos;
  private final VisibilitySettings settings;
  private final LongSupplier clockNanos;
  private final long spanFrom;
  private final long spanTo;
  private final long windowMillis;

  private final ConcurrentLinkedQueue<Sample> handed = new ConcurrentLinkedQueue<>();
  private final List<Sample> pending = new ArrayList<>();
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong sampled = new AtomicLong();
  private volatile long endNanos;
  private volatile boolean done;
  private final java.util.concurrent.CountDownLatch settled = new java.util.concurrent.CountDownLatch(1);
  /** The end-of-run count has settled (reached the acked lines, or timed out). */
  private boolean runCounted;

  // written on the poller thread, read by metrics and the report: guarded by this
  private long visible;
  private long notVisible;
  private long polls;
  private long pollErrors;
  private final LatencyHistogram fromAck = new LatencyHistogram();
  private final LatencyHistogram fromSchedule = new LatencyHistogram();
  private long lastVisibleNanos;
  private String lastLineNote = "";
  private long lastCount = -1;

  /**
   * @param reader the backend's probe reader ({@code BackendSpec.openProbe})
   * @param ids where the ids the reader lists come from
   * @param clockNanos epoch nanoseconds, the clock the outcomes' times are in
   * @param span the run's first line time and last line time + 1 ms
   * @param grid the run's windows, for the end-of-run count
   */
  public VisibilityTracker(String backend, CountReader reader, RunContext run, Capabilities.LineIds ids,
      VisibilitySettings settings, LongSupplier clockNanos, long[] span, WindowGrid grid) {
    if (ids == Capabilities.LineIds.NONE) {
      throw new IllegalArgumentException("Backend " + backend + " lists no line ids: its visibility cannot be polled.");
    }
    this.backend = backend;
    this.reader = reader;
    this.run = run;
    this.idsFromNanos = ids == Capabilities.LineIds.NANOSECOND_OFFSET;
    this.settings = settings;
    this.clockNanos = clockNanos;
    this.windowMillis = grid.sizeMillis();
    this.spanFrom = grid.windowStart(span[0]);
    this.spanTo = span[1] <= span[0] ? spanFrom : grid.windowStart(span[1] - 1) + windowMillis;
  }

  /**
   * Takes one outcome (any thread; cheap): counts its acked lines and queues it if sampled.
   *
   * @return whether it was sampled
   */
  public boolean offer(BatchOutcome o) {
    acked.addAndGet(o.acked());
    if (o.status() == BatchOutcome.Status.ACKED && o.lines() > 0 && settings.sampled(o.batchId())) {
      sampled.incrementAndGet();
      handed.add(new Sample(o.firstSeq(), o.lines(), o.scheduledNanos(), o.scheduledNanos() + o.latencyNanos()));
      return true;
    }
    return false;
  }

  /** No outcome comes after this one: {@link #poll} now also times the run's last line. */
  public void endOfInput() {
    endNanos = clockNanos.getAsLong();
  }

  /** Whether every sample is settled and the end-of-run count is done (after {@link #endOfInput}). */
  public boolean done() {
    return done;
  }

  /**
   * Waits until {@link #done}, at most {@code timeoutNanos}.
   *
   * @return whether it is done
   */
  public boolean awaitDone(long timeoutNanos) throws InterruptedException {
    return settled.await(timeoutNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  /** Samples queued or being polled. */
  public synchronized long pendingSamples() {
    return pending.size() + handed.size();
  }

  /** One round of polls (the poller thread only): each pending sample once, then the end count. */
  public void poll() {
    if (done) {
      return;
    }
    for (Sample s; (s = handed.poll()) != null; ) {
      s.fromMillis = run.lineMillis(s.firstSeq);
      s.toMillis = run.lineMillis(s.firstSeq + s.lines - 1) + 1;
      synchronized (this) {
        pending.add(s);
      }
    }
    long timeoutNanos = settings.timeout().toNanos();
    // one read per group of nearby samples: a reader that scans (Kafka, files) pays once a round
    for (List<Sample> group : groups()) {
      BitSet[] seen = seen(group);
      long now = clockNanos.getAsLong();
      synchronized (this) {
        for (int k = 0; k < group.size(); k++) {
          Sample s = group.get(k);
          if (seen != null && seen[k].cardinality() == s.lines) {
            visible++;
            fromAck.record((now - s.answerNanos) / 1_000);
            fromSchedule.record((now - s.scheduledNanos) / 1_000);
            pending.remove(s);
          } else if (now - s.answerNanos > timeoutNanos) {
            notVisible++;
            pending.remove(s);
          }
        }
      }
    }
    long end = endNanos;
    if (end != 0 && !runCounted) {
      countRun(end, timeoutNanos);
    }
    if (runCounted && handed.isEmpty()) {
      synchronized (this) {
        done = pending.isEmpty();
      }
      if (done) {
        settled.countDown();
      }
    }
  }

  /**
   * The pending samples in groups of consecutive ones whose sequence ids span at most {@link
   * #GROUP_SPAN} lines, each group read at once; all in one group for a reader that {@link
   * CountReader#scans} (a read of any range costs it a whole pass).
   */
  private List<List<Sample>> groups() {
    List<Sample> sorted = new ArrayList<>(pending);
    sorted.sort(java.util.Comparator.comparingLong(s -> s.firstSeq));
    List<List<Sample>> out = new ArrayList<>();
    List<Sample> group = null;
    boolean oneRead = reader.scans();
    for (Sample s : sorted) {
      if (group == null || (!oneRead && s.firstSeq + s.lines - group.get(0).firstSeq > GROUP_SPAN)) {
        group = new ArrayList<>();
        out.add(group);
      }
      group.add(s);
    }
    return out;
  }

  /** Most lines between the first and the last line of the samples read at once. */
  static final long GROUP_SPAN = 50_000;

  /**
   * Which lines of each sample of {@code group} were read back (one read over their time span),
   * or null when the read failed.
   */
  private BitSet[] seen(List<Sample> group) {
    Sample first = group.get(0);
    Sample last = group.get(group.size() - 1);
    long from = Long.MAX_VALUE;
    long to = Long.MIN_VALUE;
    for (Sample s : group) {
      from = Math.min(from, s.fromMillis);
      to = Math.max(to, s.toMillis);
    }
    long span = last.firstSeq + last.lines - first.firstSeq;
    // room for the neighbours' lines in the same milliseconds and for copies
    int limit = (int) Math.min(Integer.MAX_VALUE - 8, 2L * span + 10_000);
    List<Long> ids;
    try {
      ids = reader.sequenceIds(from, to, limit);
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        polls++;
        pollErrors++;
      }
      return null;
    }
    synchronized (this) {
      polls++;
    }
    BitSet[] found = new BitSet[group.size()];
    for (int k = 0; k < found.length; k++) {
      found[k] = new BitSet(group.get(k).lines);
    }
    for (long raw : ids) {
      long id = raw;
      if (idsFromNanos && raw >= 0) {
        // the modulus is far larger than a group's span: one id of the span maps to each offset
        id = first.firstSeq + Math.floorMod(raw - first.firstSeq, LineIds.MODULUS);
      }
      for (int k = 0; k < found.length; k++) {
        Sample s = group.get(k);
        if (id >= s.firstSeq && id < s.firstSeq + s.lines) {
          found[k].set((int) (id - s.firstSeq));
          break;
        }
      }
    }
    return found;
  }

  private void countRun(long end, long timeoutNanos) {
    long want = acked.get();
    if (want == 0) {
      finish(0, "no line was acknowledged");
      return;
    }
    long total = -1;
    try {
      if (spanTo > spanFrom) {
        total = 0;
        for (long c : reader.counts(spanFrom, spanTo, windowMillis)) {
          total += c;
        }
      }
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        pollErrors++;
      }
    }
    long now = clockNanos.getAsLong();
    if (total >= want) {
      finish(now, "");
    } else {
      synchronized (this) {
        lastCount = Math.max(lastCount, total);
      }
      if (now - end > timeoutNanos) {
        finish(0, String.format(Locale.ROOT, "the run's count did not reach the %,d acknowledged lines within %d s"
            + " of the run's end (last count: %s)", want, settings.timeout().toSeconds(),
            lastCount < 0 ? "none answered" : String.format(Locale.ROOT, "%,d", lastCount)));
      }
    }
  }

  private synchronized void finish(long lastVisible, String note) {
    lastVisibleNanos = lastVisible;
    lastLineNote = note;
    runCounted = true;
  }

  /** What was found so far (complete once {@link #done}). */
  public synchronized VisibilityReport report() {
    return new VisibilityReport(backend, settings.sample(), sampled.get(), visible, notVisible, polls, pollErrors,
        fromAck.copy(), fromSchedule.copy(), acked.get(), lastVisibleNanos, lastLineNote);
  }

  /** Microseconds from answer to visible, so far (for metrics). */
  public synchronized LatencyHistogram fromAckMicros() {
    return fromAck.copy();
  }

  /** Microseconds from schedule to visible, so far (for metrics). */
  public synchronized LatencyHistogram fromScheduleMicros() {
    return fromSchedule.copy();
  }
}
