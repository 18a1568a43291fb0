package io.logbench.schedule;

import java.io.Serializable;
import java.util.List;

/**
 * Expected counts of consecutive windows, in time order, with their sum.
 *
 * @param windows one row per window, consecutive and non-overlapping
 * @param total the sum of the windows' counts
 */
public record WindowCounts(List<WindowCount> windows, long total) implements Serializable {

  public WindowCounts {
    windows = List.copyOf(windows);
  }
}
