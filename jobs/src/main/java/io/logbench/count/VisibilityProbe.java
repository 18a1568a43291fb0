package io.logbench.count;

import java.util.List;

/**
 * The reads of {@code generate}'s write-to-visible polls on one backend, each answered later
 * instead of waited for: {@link #countSamples} counts every pending sample of a poll round in one
 * request, {@link #countRun} the run's lines once its input ended. A probe sees what a user's
 * search would see now (it forces no refresh or flush).
 *
 * <p>An HTTP backend's own probe writes its requests through the senders' non-blocking transport
 * and parses the small answer on its I/O thread, so a round costs one request and no thread; a
 * backend without one is read through its blocking {@link CountReader} on one thread of its own
 * ({@code count.internal.ReadingProbe}: the backends whose reads scan a topic or files).
 */
public interface VisibilityProbe extends AutoCloseable {

  /** What a count of a {@link Sample} covers, so the poller knows what to compare it with. */
  enum Reach {
    /** The sample's own lines, each once, by their ids: visible at the sample's line count. */
    LINES,
    /**
     * The lines in {@code [firstNanos, lastNanos]}: the sample's lines only, when that interval
     * holds no other line of the run (the poller samples only such batches).
     */
    NANOSECONDS,
    /**
     * Every line of the run in the sample's milliseconds, {@code [fromMillis, toMillis)}, its
     * neighbours' lines on the first and last millisecond included (a backend whose count cannot
     * be narrower than a millisecond in one request, such as Loki's offsets).
     */
    MILLISECONDS
  }

  /**
   * The lines of one sampled batch: sequence ids {@code [firstSeq, firstSeq + lines)}, the first
   * and last of them stamped {@code firstNanos} and {@code lastNanos} (epoch ns).
   */
  record Sample(long firstSeq, int lines, long firstNanos, long lastNanos) {

    /** The first line's millisecond. */
    public long fromMillis() {
      return Math.floorDiv(firstNanos, 1_000_000L);
    }

    /** The millisecond after the last line's. */
    public long toMillis() {
      return Math.floorDiv(lastNanos, 1_000_000L) + 1;
    }
  }

  /** What became of one request: called once, on any thread; must not block. */
  interface Answer {

    /** The counts asked for, in the order asked. */
    void counted(long[] counts);

    /** No count: the backend did not answer, or answered something that is not one. */
    void failed(Throwable error);
  }

  /** What this probe's sample counts cover. */
  Reach reach();

  /**
   * The most samples one {@link #countSamples} call takes (the poller asks for the oldest ones
   * first and the rest in later rounds).
   */
  default int maxSamples() {
    return 200;
  }

  /**
   * Counts each of {@code samples} as {@link #reach} says, in one request where the backend
   * allows it; {@code answer} gets one count per sample, in order.
   */
  void countSamples(List<Sample> samples, Answer answer);

  /**
   * Counts the run's lines in {@code [fromMillis, toMillis)} (its windows, of {@code
   * windowMillis}, tile that range); {@code answer} gets the total as its only count.
   */
  void countRun(long fromMillis, long toMillis, long windowMillis, Answer answer);

  @Override
  void close();
}
