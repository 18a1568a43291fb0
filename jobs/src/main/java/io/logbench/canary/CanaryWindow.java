package io.logbench.canary;

import java.io.Serializable;

/**
 * One window of a canary, by time and by sequence: {@code [start, end)} in epoch milliseconds,
 * and the sequence ids its schedule puts there, {@code [firstSeq, endSeq)}, of which {@code
 * expected} are sent (those of a gap, while the canary was down, are not). Lines carry their
 * scheduled time and their sequence id, so a window is the same lines either way: a reader that
 * counts by the backend's time and one that counts by the seq in each line's body (after an
 * agent that stamps its own time) count the same window.
 */
public record CanaryWindow(long start, long end, long firstSeq, long endSeq, long expected) implements Serializable {

  private static final long serialVersionUID = 1L;

  public long sizeMillis() {
    return end - start;
  }
}
