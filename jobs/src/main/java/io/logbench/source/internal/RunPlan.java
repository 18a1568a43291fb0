package io.logbench.source.internal;

import io.logbench.dataset.Dataset;
import io.logbench.schedule.Schedule;
import io.logbench.schedule.Timeline;
import java.io.Serializable;

/**
 * The immutable description of one source run: which dataset lines, on which schedule and
 * timeline, cut into batches of which size; all batch arithmetic lives here.
 */
public final class RunPlan implements Serializable {

  private static final long serialVersionUID = 1L;

  /** The default least time between two wake-ups of a reader, 5 ms (run files: schedule.tick). */
  public static final long DEFAULT_TICK_NANOS = 5_000_000L;

  /**
   * The default longest wait a reader sleeps through on its own thread, 20 ms: at 20k lines/s in
   * 100-line requests, each of two readers waits 10 ms between batches.
   */
  public static final long DEFAULT_OWN_WAIT_NANOS = 20_000_000L;

  private final Dataset dataset;
  private final long firstIndex;
  private final Schedule schedule;
  private final Timeline timeline;
  private final int batchSize;
  private final long lines;
  private final long batches;
  private final long tickNanos;
  private final io.logbench.schedule.Gaps gaps;
  private long ownWaitNanos = DEFAULT_OWN_WAIT_NANOS;

  public RunPlan(
      Dataset dataset, long firstIndex, Schedule schedule, Timeline timeline, int batchSize) {
    this(dataset, firstIndex, schedule, timeline, batchSize, DEFAULT_TICK_NANOS);
  }

  /**
   * A plan whose readers wake at most every {@code tickNanos}: batches due closer together leave
   * together, each at most that late (0: every batch at its due time).
   */
  public RunPlan(Dataset dataset, long firstIndex, Schedule schedule, Timeline timeline, int batchSize,
      long tickNanos) {
    this(dataset, firstIndex, schedule, timeline, batchSize, tickNanos, io.logbench.schedule.Gaps.none());
  }

  /**
   * A plan that never sends the lines of {@code gaps}: a batch whose first line is in a gap is
   * skipped (gaps start and end on batch boundaries).
   */
  public RunPlan(Dataset dataset, long firstIndex, Schedule schedule, Timeline timeline, int batchSize,
      long tickNanos, io.logbench.schedule.Gaps gaps) {
    this.gaps = gaps;
    this.dataset = dataset;
    this.firstIndex = firstIndex;
    this.schedule = schedule;
    this.timeline = timeline;
    this.batchSize = batchSize;
    this.lines = schedule.lines();
    this.batches = (lines + batchSize - 1) / batchSize;
    this.tickNanos = tickNanos;
  }

  public Dataset dataset() {
    return dataset;
  }

  /** Dataset index of run line 0, which is also its global sequence id. */
  public long firstIndex() {
    return firstIndex;
  }

  public Schedule schedule() {
    return schedule;
  }

  public Timeline timeline() {
    return timeline;
  }

  public int batchSize() {
    return batchSize;
  }

  /** Lines in the run. */
  public long lines() {
    return lines;
  }

  /** Batches in the run; the last one may be short. */
  public long batches() {
    return batches;
  }

  /** Run-relative index of the first line of batch {@code b}. */
  public long batchStart(long b) {
    return b * batchSize;
  }

  /** Number of lines in batch {@code b}. */
  public int batchLines(long b) {
    return (int) (Math.min(batchStart(b) + batchSize, lines) - batchStart(b));
  }

  /**
   * Lines in the batches of stripe {@code stripe} of {@code stripes} (batches {@code stripe,
   * stripe + stripes, ...}) before batch {@code nextBatch}.
   */
  public long linesBefore(int stripe, int stripes, long nextBatch) {
    long end = Math.min(nextBatch, batches);
    if (end <= stripe) {
      return 0;
    }
    long k = (end - stripe + stripes - 1) / stripes; // the stripe's batches below end
    long last = stripe + (k - 1) * stripes;
    return (k - 1) * batchSize + batchLines(last);
  }

  /** Offset from the run's start at which batch {@code b} is due: that of its first line. */
  public long dueNanos(long b) {
    return schedule.dueNanos(batchStart(b));
  }

  /**
   * The batch a stripe emits next when it would emit {@code batch}: {@code batch} itself, or,
   * when its first line is in a gap, the stripe's first batch after the gap ({@code stripe} of
   * {@code stripes} owns the batches {@code stripe + k * stripes}).
   */
  public long nextSent(long batch, int stripe, int stripes) {
    long line = batchStart(batch);
    long after = gaps.skip(line);
    if (after == line) {
      return batch;
    }
    long first = (after + batchSize - 1) / batchSize;
    long k = Math.floorDiv(first - stripe + stripes - 1, stripes);
    return nextSent(stripe + Math.max(0, k) * stripes, stripe, stripes);
  }

  /** The lines never sent. */
  public io.logbench.schedule.Gaps gaps() {
    return gaps;
  }

  public boolean paced() {
    return schedule.paced();
  }

  /** The least time between two wake-ups of a reader (0: none). */
  /**
   * How long a reader waits for its next batch on the task's own thread, at most: a wait up to
   * this long is a sleep in {@code pollNext}, a longer one goes to the JVM's pacer (see {@code
   * DatasetSourceReader}).
   */
  public long ownWaitNanos() {
    return ownWaitNanos;
  }

  /** Sets {@link #ownWaitNanos} (0: every wait goes to the pacer); returns this plan. */
  public RunPlan ownWaitNanos(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("A reader's own wait must not be negative, not " + nanos + " ns.");
    }
    this.ownWaitNanos = nanos;
    return this;
  }

  public long tickNanos() {
    return tickNanos;
  }
}
