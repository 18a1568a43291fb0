package io.logbench.canary;

import io.logbench.count.CountReader;
import java.io.IOException;
import java.util.List;

/**
 * How a canary counts one backend's windows and reads their ids back. {@link #of} counts with
 * the backend's own {@link CountReader}, by the time each line carries in the backend; a backend
 * whose lines are written elsewhere (an agent's input) and counted by the sequence number in each
 * line's body implements the same two calls over {@link CanaryWindow#firstSeq} and {@link
 * CanaryWindow#endSeq}, and the checks above stay as they are.
 */
public interface WindowCounter extends AutoCloseable {

  /**
   * Lines held in each of {@code windows}, consecutive windows of one size, in their order.
   *
   * @throws IOException when the backend does not answer (the windows stay open, never OK)
   */
  long[] counts(List<CanaryWindow> windows) throws IOException;

  /** Sequence ids of the lines held in {@code window}, at most {@code limit}, repeats as often as held. */
  List<Long> sequenceIds(CanaryWindow window, int limit) throws IOException;

  /** Whether {@link #sequenceIds} gives {@code seq mod 999,999} (nanosecond offsets) rather than full ids. */
  boolean idsFromNanos();

  @Override
  void close();

  /** Counts by time with {@code reader}; {@code idsFromNanos} as its backend gives ids. */
  static WindowCounter of(CountReader reader, boolean idsFromNanos) {
    return new WindowCounter() {
      @Override
      public long[] counts(List<CanaryWindow> windows) throws IOException {
        CanaryWindow first = windows.get(0);
        return reader.counts(first.start(), windows.get(windows.size() - 1).end(), first.sizeMillis());
      }

      @Override
      public List<Long> sequenceIds(CanaryWindow window, int limit) throws IOException {
        return reader.sequenceIds(window.start(), window.end(), limit);
      }

      @Override
      public boolean idsFromNanos() {
        return idsFromNanos;
      }

      @Override
      public void close() {
        reader.close();
      }
    };
  }
}
