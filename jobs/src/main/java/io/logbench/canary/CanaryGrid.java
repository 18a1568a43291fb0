package io.logbench.canary;

import io.logbench.schedule.ExpectedCounts;
import io.logbench.sink.WindowGrid;
import java.io.Serializable;

/**
 * A canary's windows: the run's window grid, with each window's sequence range and expected
 * lines from the run's expected counts (its gaps left out). Arithmetic only.
 *
 * @param firstIndex the sequence id of the run's first line
 */
public record CanaryGrid(WindowGrid grid, ExpectedCounts expected, long firstIndex) implements Serializable {

  private static final long serialVersionUID = 1L;

  public long windowMillis() {
    return grid.sizeMillis();
  }

  /** Start of the window holding {@code millis}. */
  public long windowStart(long millis) {
    return grid.windowStart(millis);
  }

  /** The window starting at {@code start} (a start of the grid). */
  public CanaryWindow window(long start) {
    long end = start + grid.sizeMillis();
    return new CanaryWindow(start, end, firstIndex + expected.indexBefore(start), firstIndex + expected.indexBefore(end),
        expected.count(start, end));
  }

  /** Whether sequence id {@code seq} lies in a gap (never sent). */
  public boolean unsent(long seq) {
    return expected.gaps().contains(seq - firstIndex);
  }
}
