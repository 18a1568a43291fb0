package io.logbench.source;

import io.logbench.dataset.Dataset;
import io.logbench.replay.ReplayFiles;
import io.logbench.schedule.Schedule;
import io.logbench.schedule.Timeline;
import io.logbench.source.internal.EnumeratorState;
import io.logbench.source.internal.LeaseSettings;
import io.logbench.source.internal.RunPlan;

/**
 * Builds a {@link DatasetSource}. Dataset, schedule and timeline are required; the rest default:
 *
 * <ul>
 *   <li>{@link #firstIndex}: {@value #DEFAULT_FIRST_INDEX}, the dataset's first line;
 *   <li>{@link #batchSize}: {@value #DEFAULT_BATCH_SIZE} lines, as the k6 script of seed 000;
 *   <li>{@link #stripes}: the source's parallelism when the job first starts;
 *   <li>{@link #runStartMillis}: the wall clock when the first reader registers;
 *   <li>{@link #leases}: none (no lease, no restore record); a lease extension covers {@value
 *       #DEFAULT_LEASE_BATCHES} batches of a stripe.
 * </ul>
 */
public final class DatasetSourceBuilder {

  public static final long DEFAULT_FIRST_INDEX = 0;
  public static final int DEFAULT_BATCH_SIZE = 100;
  /**
   * Batches of a stripe one lease extension covers: one small write every 8 batches, and after a
   * failure at most 7 batches per stripe counted as sent again that the failed attempt never sent.
   */
  public static final int DEFAULT_LEASE_BATCHES = 8;

  private Dataset dataset;
  private long firstIndex = DEFAULT_FIRST_INDEX;
  private Schedule schedule;
  private Timeline timeline;
  private int batchSize = DEFAULT_BATCH_SIZE;
  private int stripes;
  private long runStartMillis = EnumeratorState.NOT_STARTED;
  private ReplayFiles leaseFiles;
  private String leaseBackend;
  private int leaseBatches = DEFAULT_LEASE_BATCHES;
  private boolean endAfterCheckpoint;
  private boolean jsonEscapedLines;
  private String backend;
  private long tickNanos = RunPlan.DEFAULT_TICK_NANOS;
  private io.logbench.schedule.Gaps gaps = io.logbench.schedule.Gaps.none();

  DatasetSourceBuilder() {}

  /** The dataset the lines come from. */
  public DatasetSourceBuilder dataset(Dataset dataset) {
    this.dataset = dataset;
    return this;
  }

  /** Dataset index of the run's first line; the run covers {@code schedule.lines()} lines. */
  public DatasetSourceBuilder firstIndex(long firstIndex) {
    this.firstIndex = firstIndex;
    return this;
  }

  /** When each line is due, indexed by run line ({@code seq - firstIndex}). */
  public DatasetSourceBuilder schedule(Schedule schedule) {
    this.schedule = schedule;
    return this;
  }

  /** The timestamps lines carry, indexed by run line. */
  public DatasetSourceBuilder timeline(Timeline timeline) {
    this.timeline = timeline;
    return this;
  }

  /** Lines per batch. */
  public DatasetSourceBuilder batchSize(int batchSize) {
    this.batchSize = batchSize;
    return this;
  }

  /** Number of stripes; fixed for the run, so a job rescaled on restore keeps its batches. */
  public DatasetSourceBuilder stripes(int stripes) {
    this.stripes = stripes;
    return this;
  }

  /** A fixed run start, epoch milliseconds (for tests and for runs that must start together). */
  public DatasetSourceBuilder runStartMillis(long runStartMillis) {
    this.runStartMillis = runStartMillis;
    return this;
  }

  /**
   * Keeps each stripe's lease in {@code files} under {@code backend}, and records in them what a
   * restored reader emits again (see {@link ReplayFiles}).
   */
  public DatasetSourceBuilder leases(ReplayFiles files, String backend) {
    this.leaseFiles = files;
    this.leaseBackend = backend;
    return this;
  }

  /** Batches of a stripe one lease extension covers. */
  public DatasetSourceBuilder leaseBatches(int batches) {
    this.leaseBatches = batches;
    return this;
  }

  /**
   * Whether each reader, once it has emitted its last batch, keeps its input open until a
   * checkpoint taken after that completes (default false), for a backend that commits on
   * checkpoints: its last transaction then commits, and its outcomes go out, before the end of
   * input reaches the operators after it. Only for jobs with checkpointing, or a reader waits for
   * ever.
   */
  public DatasetSourceBuilder endAfterCheckpoint(boolean endAfterCheckpoint) {
    this.endAfterCheckpoint = endAfterCheckpoint;
    return this;
  }

  /**
   * Whether the batches hold their lines escaped for the inside of a JSON string (default false),
   * for a backend whose encoder writes them so ({@code BackendSpec#jsonStringLines}): its encoder
   * then copies each line instead of escaping it byte by byte. Only a dataset that {@link
   * io.logbench.dataset.Dataset#makesJsonEscapedLines} makes them so; other datasets' batches stay
   * raw, which such an encoder escapes.
   */
  public DatasetSourceBuilder jsonEscapedLines(boolean jsonEscapedLines) {
    this.jsonEscapedLines = jsonEscapedLines;
    return this;
  }

  /**
   * The least time between two wake-ups of a reader (default 5 ms): batches due closer together
   * leave together, each at most that late; zero wakes for every batch.
   */
  public DatasetSourceBuilder tick(java.time.Duration tick) {
    this.tickNanos = tick.toNanos();
    return this;
  }

  /**
   * Lines never sent (default none): a batch whose first line is in a gap is skipped, so a canary
   * started again after a while down does not send what was due while it was down. Gaps start
   * and end on batch boundaries.
   */
  public DatasetSourceBuilder gaps(io.logbench.schedule.Gaps gaps) {
    this.gaps = gaps;
    return this;
  }

  /** The backend this source feeds: its readers' metrics are also in group {@code backend=<name>}. */
  public DatasetSourceBuilder backend(String name) {
    this.backend = name;
    return this;
  }

  public DatasetSource build() {
    sanityCheck();
    return new DatasetSource(
        new RunPlan(dataset, firstIndex, schedule, timeline, batchSize, tickNanos, gaps), stripes, runStartMillis, backend,
        leaseFiles == null ? null : new LeaseSettings(leaseFiles, leaseBackend, leaseBatches),
        endAfterCheckpoint, jsonEscapedLines);
  }

  private void sanityCheck() {
    require(dataset != null, "A dataset source needs a dataset.");
    require(schedule != null, "A dataset source needs a schedule.");
    require(timeline != null, "A dataset source needs a timeline.");
    require(batchSize > 0, "The batch size must be at least 1 line, not " + batchSize + ".");
    require(tickNanos >= 0, "The pacing tick must not be negative, not " + tickNanos + " ns.");
    require(stripes >= 0, "The number of stripes must be positive, not " + stripes + ".");
    require(gaps != null, "The gaps must not be null; Gaps.none() for none.");
    for (long[] g : gaps.ranges()) {
      require(g[0] % batchSize == 0 && (g[1] % batchSize == 0 || g[1] >= schedule.lines()),
          "A gap must start and end on a batch boundary (batches of " + batchSize + " lines), not [" + g[0] + ", "
              + g[1] + ").");
    }
    require(leaseBatches >= 1, "A lease must cover at least 1 batch, not " + leaseBatches + ".");
    require(leaseFiles == null || (leaseBackend != null && !leaseBackend.isEmpty()),
        "Leases need the name of the backend the source feeds.");
    require(firstIndex >= 0, "The first index must not be negative, not " + firstIndex + ".");
    long lines = schedule.lines();
    require(lines >= 0, "The schedule has a negative number of lines: " + lines + ".");
    require(
        firstIndex + lines <= dataset.size(),
        "The run covers dataset lines ["
            + firstIndex
            + ", "
            + (firstIndex + lines)
            + "), but dataset "
            + dataset.name()
            + " has only "
            + dataset.size()
            + " lines.");
    require(
        timeline.lines() == lines,
        "The timeline covers "
            + timeline.lines()
            + " lines but the schedule sends "
            + lines
            + "; expected counts would be wrong.");
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }
}
