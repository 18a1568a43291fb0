package io.logbench.source.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.schedule.Timeline;
import io.logbench.source.internal.StripeSplit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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
 * <p>When the next batch is not yet due it returns {@link InputStatus#NOTHING_AVAILABLE} and a
 * timer completes the availability future at the due time.
 */
public final class DatasetSourceReader implements SourceReader<LineBatch, StripeSplit> {

  /** Gauge: how far behind its due time the last batch was emitted, milliseconds, at least 0. */
  public static final String SCHEDULE_LAG_MILLIS = "scheduleLagMillis";

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
  private final PriorityQueue<Stripe> stripes =
      new PriorityQueue<>(Comparator.comparingLong(s -> s.nextBatch));
  private final LineBatch scratch;
  private final Counter linesEmitted;
  private final Counter batchesEmitted;

  private volatile long scheduleLagMillis;
  private volatile long runStartMillis;
  private CompletableFuture<Void> available = new CompletableFuture<>();
  private boolean noMoreSplits;
  private ScheduledExecutorService timer;
  private ScheduledFuture<?> wakeUp;

  public DatasetSourceReader(RunPlan plan, SourceReaderContext context) {
    this(plan, context, null);
  }

  /** A reader whose gauges are also in group {@code backend=<backend>} when it is not null. */
  public DatasetSourceReader(RunPlan plan, SourceReaderContext context, String backend) {
    this.plan = plan;
    this.timeline = plan.timeline();
    this.subtask = context.getIndexOfSubtask();
    // Room for typical lines up front; the batch grows if a dataset's lines are longer.
    this.scratch =
        new LineBatch(plan.batchSize(), (int) Math.min(1L << 20, plan.batchSize() * 128L));
    this.linesEmitted = context.metricGroup().counter(LINES_EMITTED);
    this.batchesEmitted = context.metricGroup().counter(BATCHES_EMITTED);
    context.metricGroup().gauge(SCHEDULE_LAG_MILLIS, (Gauge<Long>) () -> scheduleLagMillis);
    if (backend != null) {
      var group = context.metricGroup().addGroup("backend", backend);
      group.gauge(SCHEDULE_LAG_MILLIS, (Gauge<Long>) () -> scheduleLagMillis);
      group.gauge(TARGET_LINES_PER_SECOND, (Gauge<Double>) this::targetRate);
    }
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
      if (head == null) {
        if (noMoreSplits) {
          return InputStatus.END_OF_INPUT;
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
        lagNanos = WallClock.epochNanos() - due;
        if (lagNanos < 0) {
          return waitFor(-lagNanos);
        }
      }
      stripes.poll();
      LineBatch batch = fill(head);
      // latency counts from the due time, so a lagging source does not hide a slow backend
      batch.setScheduledNanos(plan.paced()
          ? head.runStartMillis * 1_000_000L + plan.dueNanos(head.nextBatch)
          : WallClock.epochNanos());
      head.nextBatch += head.stripes;
      stripes.add(head);
      output.collect(batch);
      scheduleLagMillis = lagNanos / 1_000_000L;
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
    for (int k = 0; k < n; k++) {
      cursor.next(scratch);
    }
    for (int k = 0; k < n; k++) {
      scratch.setTimestampMillis(
          k, timeline.lineMillis(first + k, scratch.timestampMillis(k), stripe.runStartMillis));
    }
    return scratch.copy();
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

  private InputStatus waitFor(long delayNanos) {
    CompletableFuture<Void> future = pendingFuture();
    if (timer == null) {
      timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "logbench-source-pacer-" + subtask);
                t.setDaemon(true);
                return t;
              });
    }
    if (wakeUp != null) {
      wakeUp.cancel(false);
    }
    // pollNext checks the wall clock again, so a timer firing a little early only costs a retry.
    wakeUp = timer.schedule(() -> future.complete(null), delayNanos, TimeUnit.NANOSECONDS);
    return InputStatus.NOTHING_AVAILABLE;
  }

  @Override
  public List<StripeSplit> snapshotState(long checkpointId) {
    List<StripeSplit> state = new ArrayList<>(stripes.size());
    for (Stripe s : stripes) {
      if (s.nextBatch < plan.batches()) {
        state.add(new StripeSplit(s.stripe, s.stripes, s.nextBatch, s.runStartMillis));
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
    for (StripeSplit split : splits) {
      if (split.nextBatch() < plan.batches()) {
        stripes.add(new Stripe(split, plan));
      }
      runStartMillis = split.runStartMillis();
    }
    available.complete(null);
  }

  @Override
  public void notifyNoMoreSplits() {
    noMoreSplits = true;
    available.complete(null);
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  /** A stripe being read: its position and its forward-only cursor. */
  private static final class Stripe {
    final int stripe;
    final int stripes;
    final long runStartMillis;
    final LineCursor cursor;
    long nextBatch;

    Stripe(StripeSplit split, RunPlan plan) {
      this.stripe = split.stripe();
      this.stripes = split.stripes();
      this.runStartMillis = split.runStartMillis();
      this.nextBatch = split.nextBatch();
      this.cursor =
          plan.dataset().cursor(plan.firstIndex() + plan.batchStart(split.nextBatch()));
    }
  }
}
