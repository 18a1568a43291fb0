package io.logbench.source.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineBatchPool;
import io.logbench.dataset.LineCursor;
import io.logbench.pacing.Pacer;
import io.logbench.pacing.WallClock;
import io.logbench.replay.ReplayFiles;
import io.logbench.replay.ReplayedRange;
import io.logbench.replay.RestoreRecord;
import io.logbench.replay.StripeLease;
import io.logbench.schedule.Timeline;
import io.logbench.source.internal.StripeSplit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;

/**
 * Emits the batches of the stripes it owns, each when the schedule says it is due, smallest batch
 * id first, so every reader of a run moves through time together.
 *
 * <p>When the next batch is due within {@link RunPlan#ownWaitNanos} (20 ms by default) it sleeps
 * on the task's own thread until then and emits it; when it is due later it returns {@link
 * InputStatus#NOTHING_AVAILABLE} and the JVM's {@link Pacer} completes the availability future at
 * the due time. Either way a reader wakes at most once every {@link RunPlan#tickNanos} (5 ms by
 * default): when batches are due closer together than that, one wake-up emits every batch due by
 * then. The batches of a tick leave at most a tick late; their latency still counts from their
 * due time.
 *
 * <p>Why sleep in {@code pollNext}, which Flink would have return at once: a wake-up through the
 * pacer is two thread hand-offs (the pacer's timer, then its signal to the task's mailbox), and on
 * a virtual machine each costs tens of microseconds of CPU on both sides, about as much as
 * encoding a 100-line batch; the task's own timed sleep is one, on its own core. What the sleep
 * holds up is what the task's mailbox would have run meanwhile: a checkpoint's start, the answers
 * of the requests in flight (stamped when they came in, so their latency does not move) and the
 * outcomes they emit, each by at most the sleep. A cancelled task's interrupt ends the sleep; the
 * reader then waits for the pacer, and the task sees the interrupt.
 *
 * <p>With {@link LeaseSettings}, each stripe's lease is extended on file before the stripe emits a
 * batch beyond it ({@link StripeLease}); a stripe whose lease file already holds a batch when the
 * reader gets it was started by an earlier attempt, and the reader records, in one {@link
 * RestoreRecord} per {@link #addSplits} call, where each such stripe went back to and the batches
 * from there up to the lease, which it emits again and the earlier attempt may have sent.
 *
 * <p>With {@code endAfterCheckpoint}, once its last batch is out it returns nothing until a
 * checkpoint snapshotted after that completes, and only then the end of input.
 */
public final class DatasetSourceReader implements SourceReader<LineBatch, StripeSplit> {

  /**
   * Gauge: how far behind the schedule this reader is now, milliseconds: from its next batch's due
   * time to now, 0 while that is ahead, after its last batch and for unpaced schedules. It grows
   * while the reader is held back (a backend's backpressure), not only when a batch leaves.
   */
  public static final String SCHEDULE_LAG_MILLIS = "scheduleLagMillis";

  /**
   * Gauge: lines of the run this reader's stripes are past, by their positions, so a restored
   * reader counts from its checkpointed positions and lines sent again are not counted twice.
   */
  public static final String LINES_DONE = "linesDone";

  /**
   * Gauge, in group {@code backend=<name>} only: the schedule's target rate now, lines per second
   * for the whole run (every reader reports the same; 0 before the start and after the end).
   */
  public static final String TARGET_LINES_PER_SECOND = "targetLinesPerSecond";

  /** Counter: lines emitted by this reader. */
  public static final String LINES_EMITTED = "linesEmitted";

  /** Counter: batches emitted by this reader. */
  public static final String BATCHES_EMITTED = "batchesEmitted";

  private final RunPlan plan;
  private final Timeline timeline;
  private final int subtask;
  private final LeaseSettings leases;
  /** Every lease this reader opened, finished stripes' too, to close them. */
  private final List<StripeLease> openLeases = new ArrayList<>();
  private final PriorityQueue<Stripe> stripes =
      new PriorityQueue<>(Comparator.comparingLong(s -> s.nextBatch));
  private final LineBatch scratch;
  private final Counter linesEmitted;
  private final Counter batchesEmitted;

  /** Epoch ns the next batch is due (paced schedules), {@link Long#MAX_VALUE} when none is left. */
  private volatile long nextDueNanos = Long.MAX_VALUE;
  /** Lines of the run before the stripes' positions (written on the task thread, read by metrics). */
  private volatile long linesDone;
  private volatile long runStartMillis;
  private CompletableFuture<Void> available = new CompletableFuture<>();
  private boolean noMoreSplits;
  /** The JVM's pacer and this reader's place in it, from the first wait on. */
  private Pacer pacer;
  private Pacer.Waiter waiter;
  /** Epoch nanoseconds of the last wake-up asked for (0: none yet). */
  private long lastWakeUpNanos;
  /** End the input only after a checkpoint taken once the last batch is out has completed. */
  private final boolean endAfterCheckpoint;
  /** The first checkpoint snapshotted after the last batch (-1: none yet, or not done). */
  private long lastCheckpoint = -1;
  private boolean drained;
  private boolean lastCheckpointCompleted;

  public DatasetSourceReader(RunPlan plan, SourceReaderContext context) {
    this(plan, context, null, null, false, false);
  }

  /**
   * A reader whose gauges are also in group {@code backend=<backend>} when it is not null, that
   * keeps leases and writes restore records as {@code leases} says (null: none), and, with {@code
   * endAfterCheckpoint}, ends its input only after a checkpoint taken once its last batch is out
   * has completed; with {@code jsonEscapedLines}, its batches hold their lines escaped for a JSON
   * string when the dataset {@link io.logbench.dataset.Dataset#makesJsonEscapedLines makes them so}.
   */
  public DatasetSourceReader(RunPlan plan, SourceReaderContext context, String backend, LeaseSettings leases,
      boolean endAfterCheckpoint, boolean jsonEscapedLines) {
    this.plan = plan;
    this.leases = leases;
    this.endAfterCheckpoint = endAfterCheckpoint;
    this.timeline = plan.timeline();
    this.subtask = context.getIndexOfSubtask();
    // Room for typical lines up front; the batch grows if a dataset's lines are longer.
    this.scratch =
        new LineBatch(plan.batchSize(), (int) Math.min(1L << 20, plan.batchSize() * 128L));
    scratch.setJsonEscaped(jsonEscapedLines && plan.dataset().makesJsonEscapedLines());
    this.linesEmitted = context.metricGroup().counter(LINES_EMITTED);
    this.batchesEmitted = context.metricGroup().counter(BATCHES_EMITTED);
    context.metricGroup().gauge(SCHEDULE_LAG_MILLIS, (Gauge<Long>) this::scheduleLagMillis);
    context.metricGroup().gauge(LINES_DONE, (Gauge<Long>) this::linesDone);
    if (backend != null) {
      var group = context.metricGroup().addGroup("backend", backend);
      group.gauge(SCHEDULE_LAG_MILLIS, (Gauge<Long>) this::scheduleLagMillis);
      group.gauge(TARGET_LINES_PER_SECOND, (Gauge<Double>) this::targetRate);
      group.gauge(LINES_DONE, (Gauge<Long>) this::linesDone);
    }
  }

  /** Notes when {@code head}'s next batch is due, for the lag gauge. */
  private void nextDue(Stripe head) {
    nextDueNanos = head == null || head.nextBatch >= plan.batches() || !plan.paced() ? Long.MAX_VALUE
        : head.runStartMillis * 1_000_000L + plan.dueNanos(head.nextBatch);
  }

  /** {@link #SCHEDULE_LAG_MILLIS} now (any thread). */
  long scheduleLagMillis() {
    long due = nextDueNanos;
    return due == Long.MAX_VALUE ? 0 : Math.max(0, (WallClock.epochNanos() - due) / 1_000_000L);
  }

  /** {@link #LINES_DONE} now (any thread). */
  long linesDone() {
    return linesDone;
  }

  /** The schedule's rate at this moment of the run; 0 before a split says when the run starts. */
  private double targetRate() {
    long start = runStartMillis;
    if (start <= 0 || !plan.paced()) {
      return 0;
    }
    return plan.schedule().targetRate((System.currentTimeMillis() - start) * 1_000_000L);
  }

  @Override
  public void start() {}

  @Override
  public InputStatus pollNext(ReaderOutput<LineBatch> output) {
    while (true) {
      Stripe head = stripes.peek();
      nextDue(head);
      if (head == null) {
        if (noMoreSplits) {
          return endOfInput();
        }
        return waitForSignal();
      }
      if (head.nextBatch >= plan.batches()) {
        stripes.poll();
        continue;
      }
      long lagNanos = 0;
      if (plan.paced()) {
        long due = head.runStartMillis * 1_000_000L + plan.dueNanos(head.nextBatch);
        long now = WallClock.epochNanos();
        lagNanos = now - due;
        if (lagNanos < 0) {
          // a wake-up asked for that has not come yet (another signal woke the reader first) is
          // kept; after one that came, the next is at least a tick later
          long earliest = lastWakeUpNanos > now ? lastWakeUpNanos : lastWakeUpNanos + plan.tickNanos();
          long wakeUp = Math.max(due, earliest);
          if (wakeUp - now > plan.ownWaitNanos() || !sleepUntil(wakeUp)) {
            return waitUntil(wakeUp);
          }
          continue;
        }
      }
      stripes.poll();
      LineBatch batch = fill(head);
      // latency counts from the due time, so a lagging source does not hide a slow backend
      batch.setScheduledNanos(plan.paced()
          ? head.runStartMillis * 1_000_000L + plan.dueNanos(head.nextBatch)
          : WallClock.epochNanos());
      if (head.lease != null) {
        head.lease.beforeEmit(head.nextBatch); // an upper bound on file before the batch leaves
      }
      head.nextBatch = plan.nextSent(head.nextBatch + head.stripes, head.stripe, head.stripes);
      stripes.add(head);
      output.collect(batch);
      linesDone += batch.count();
      nextDue(stripes.peek());
      linesEmitted.inc(batch.count());
      batchesEmitted.inc();
      return InputStatus.MORE_AVAILABLE;
    }
  }

  private LineBatch fill(Stripe stripe) {
    long b = stripe.nextBatch;
    long first = plan.batchStart(b);
    int n = plan.batchLines(b);
    long firstSeq = plan.firstIndex() + first;
    scratch.reset(b, firstSeq);
    LineCursor cursor = stripe.cursor;
    cursor.skipTo(firstSeq);
    cursor.next(scratch, n);
    for (int k = 0; k < n; k++) {
      scratch.setTimestampMillis(
          k, timeline.lineMillis(first + k, scratch.timestampMillis(k), stripe.runStartMillis));
    }
    LineBatch reused = LineBatchPool.take();
    return reused == null ? scratch.copy() : scratch.copyInto(reused);
  }

  /**
   * The end of input, or with {@code endAfterCheckpoint} nothing until a checkpoint snapshotted
   * after the last batch has completed: the backend's sink chained after this reader has then
   * committed every batch (Flink notifies every operator of a task in one go) before the end of
   * input leaves the task.
   */
  private InputStatus endOfInput() {
    if (!endAfterCheckpoint || lastCheckpointCompleted) {
      return InputStatus.END_OF_INPUT;
    }
    drained = true;
    return waitForSignal();
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    if (lastCheckpoint >= 0 && checkpointId >= lastCheckpoint && !lastCheckpointCompleted) {
      lastCheckpointCompleted = true;
      available.complete(null);
    }
  }

  private CompletableFuture<Void> pendingFuture() {
    if (available.isDone()) {
      available = new CompletableFuture<>();
    }
    return available;
  }

  private InputStatus waitForSignal() {
    pendingFuture();
    return InputStatus.NOTHING_AVAILABLE;
  }

  /**
   * Sleeps on the task's own thread until {@code wakeUpNanos} (epoch); false, with the thread's
   * interrupt kept, if it was interrupted (Flink cancels a task so): the caller then waits for
   * the pacer and returns, and the task sees the interrupt.
   */
  private boolean sleepUntil(long wakeUpNanos) {
    lastWakeUpNanos = wakeUpNanos;
    long left;
    while ((left = wakeUpNanos - WallClock.epochNanos()) > 0) {
      if (Thread.currentThread().isInterrupted()) {
        return false;
      }
      LockSupport.parkNanos(this, left);
    }
    return true;
  }

  /** Nothing until {@code wakeUpNanos} (epoch). */
  private InputStatus waitUntil(long wakeUpNanos) {
    lastWakeUpNanos = wakeUpNanos;
    CompletableFuture<Void> future = pendingFuture();
    if (pacer == null) {
      pacer = Pacer.acquire();
      waiter = pacer.add();
    }
    // pollNext checks the wall clock again, so a wake-up a little early only costs a retry.
    pacer.wakeAt(waiter, wakeUpNanos, future);
    return InputStatus.NOTHING_AVAILABLE;
  }

  @Override
  public List<StripeSplit> snapshotState(long checkpointId) {
    if (drained && lastCheckpoint < 0) {
      lastCheckpoint = checkpointId;
    }
    List<StripeSplit> state = new ArrayList<>(stripes.size());
    for (Stripe s : stripes) {
      if (s.nextBatch < plan.batches()) {
        state.add(new StripeSplit(s.stripe, s.stripes, s.nextBatch, s.runStartMillis, checkpointId));
      }
    }
    return state;
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void addSplits(List<StripeSplit> splits) {
    List<RestoreRecord.StripePosition> positions = new ArrayList<>();
    List<ReplayedRange> replayed = new ArrayList<>();
    long checkpoint = -1;
    for (StripeSplit split : splits) {
      linesDone += plan.linesBefore(split.stripe(), split.stripes(), split.nextBatch());
      if (split.nextBatch() < plan.batches()) {
        Stripe stripe = new Stripe(split, plan);
        if (leases != null) {
          stripe.lease = openLease(split, positions, replayed);
          openLeases.add(stripe.lease);
          checkpoint = Math.max(checkpoint, split.checkpointId());
        }
        stripes.add(stripe);
      }
      runStartMillis = split.runStartMillis();
    }
    if (!positions.isEmpty()) {
      RestoreRecord record = new RestoreRecord(RestoreRecord.SOURCE, System.currentTimeMillis(), leases.backend(),
          subtask, -1, checkpoint, positions, replayed);
      try {
        leases.files().append(record);
      } catch (IOException e) {
        throw new UncheckedIOException("Could not record the restore of backend " + leases.backend()
            + "'s source in " + leases.files().restoresLocation() + ": " + e.getMessage(), e);
      }
    }
    available.complete(null);
  }

  /**
   * Opens a stripe's lease; if an earlier attempt left one, adds the stripe's position and the
   * batches from it up to the lease (an unreadable lease: up to the stripe's end).
   */
  private StripeLease openLease(StripeSplit split, List<RestoreRecord.StripePosition> positions,
      List<ReplayedRange> replayed) {
    try {
      ReplayFiles.Lease file = leases.files().lease(leases.backend(), split.stripe());
      long previous = file.previous();
      if (previous == ReplayFiles.Lease.NONE) {
        return new StripeLease(file, split.stripes(), leases.leaseBatches(), ReplayFiles.Lease.NONE);
      }
      long upTo = previous == ReplayFiles.Lease.UNKNOWN ? plan.batches() - 1 : previous;
      positions.add(new RestoreRecord.StripePosition(split.stripe(), split.stripes(), split.nextBatch(), upTo));
      ReplayedRange range = ReplayedRange.stripe(split.nextBatch(), upTo, split.stripes(), plan.batchSize(),
          plan.firstIndex(), plan.lines());
      if (range != null) {
        replayed.add(range);
      }
      // the lease in force stays: this attempt emits up to it again before it extends it
      return new StripeLease(file, split.stripes(), leases.leaseBatches(),
          previous == ReplayFiles.Lease.UNKNOWN ? ReplayFiles.Lease.NONE : previous);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not open the replay lease of backend " + leases.backend() + "'s stripe "
          + split.stripe() + " in " + leases.files().runDir() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void notifyNoMoreSplits() {
    noMoreSplits = true;
    available.complete(null);
  }

  @Override
  public void close() throws IOException {
    if (pacer != null) {
      pacer.remove(waiter);
      pacer = null;
      Pacer.release();
    }
    for (StripeLease lease : openLeases) {
      lease.close();
    }
  }

  /** A stripe being read: its position and its forward-only cursor. */
  private static final class Stripe {
    final int stripe;
    final int stripes;
    final long runStartMillis;
    final LineCursor cursor;
    long nextBatch;
    /** The stripe's lease, or null when leases are off. */
    StripeLease lease;

    Stripe(StripeSplit split, RunPlan plan) {
      this.stripe = split.stripe();
      this.stripes = split.stripes();
      this.runStartMillis = split.runStartMillis();
      this.nextBatch = plan.nextSent(split.nextBatch(), stripe, stripes);
      this.cursor =
          plan.dataset().cursor(plan.firstIndex() + plan.batchStart(split.nextBatch()));
    }
  }
}
