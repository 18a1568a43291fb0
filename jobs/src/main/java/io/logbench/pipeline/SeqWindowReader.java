package io.logbench.pipeline;

import io.logbench.count.CountReader;
import io.logbench.count.SeqCounter;
import io.logbench.count.internal.WindowRange;
import io.logbench.schedule.ExpectedCounts;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The count reader of a count block behind a pipeline's write: windows decided by the sequence
 * ids the lines carry, never by the time the agent or the backend filed them under. A line's
 * timestamp is a pure function of its id, non-decreasing in it, so the window {@code [start,
 * end)} holds exactly the ids {@code [first + indexBefore(start), first + indexBefore(end))}
 * ({@link ExpectedCounts#indexBefore}: the timeline's lines, a canary's gaps included, since the
 * lines of a gap keep their ids and are never sent); the reader asks the backend's {@link SeqCounter} for those id ranges,
 * among the lines filed from {@code lead} before the first window to {@code lag} after the last
 * (but not past now plus {@code lead}): an agent that stamps its read time files a line after
 * its own timestamp, by as much as it was down or behind.
 */
public final class SeqWindowReader implements CountReader {

  private final SeqCounter counter;
  private final ExpectedCounts times;
  private final long firstIndex;
  private final long leadMillis;
  private final long lagMillis;
  private final LongSupplier clock;

  /**
   * @param counter the backend's counter by sequence id
   * @param times the run's timeline and start
   * @param firstIndex the run's first sequence id
   * @param lead how long before its own timestamp a line may be filed (clocks apart)
   * @param lag how long after its own timestamp a line may be filed (the {@code lag} key)
   */
  public SeqWindowReader(SeqCounter counter, ExpectedCounts times, long firstIndex, Duration lead, Duration lag,
      LongSupplier clock) {
    this.counter = Objects.requireNonNull(counter, "counter");
    this.times = Objects.requireNonNull(times, "A pipeline's count needs the run's timeline.");
    this.firstIndex = firstIndex;
    this.leadMillis = lead.toMillis();
    this.lagMillis = lag.toMillis();
    this.clock = clock;
  }

  /** The first sequence id whose timestamp is at or after {@code millis}. */
  long idAt(long millis) {
    return firstIndex + times.indexBefore(millis);
  }

  @Override
  public long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException {
    WindowRange r = WindowRange.of(fromMillis, toMillis, windowMillis);
    long[] bounds = new long[r.n() + 1];
    for (int k = 0; k <= r.n(); k++) {
      bounds[k] = idAt(r.start(k));
    }
    if (r.n() == 0) {
      return new long[0];
    }
    return counter.counts(bounds, fromMillis - leadMillis, filedBefore(toMillis));
  }

  @Override
  public List<Long> sequenceIds(long fromMillis, long toMillis, int limit) throws IOException {
    return counter.sequenceIds(idAt(fromMillis), idAt(toMillis), fromMillis - leadMillis, filedBefore(toMillis),
        limit);
  }

  private long filedBefore(long toMillis) {
    return Math.min(toMillis + lagMillis, Math.max(toMillis, clock.getAsLong()) + leadMillis);
  }

  @Override
  public QueryStats stats() {
    return counter.stats();
  }

  @Override
  public void close() {
    counter.close();
  }
}
