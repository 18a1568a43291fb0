package io.logbench.source.internal;

import io.logbench.source.internal.StripeSplit;
import java.util.List;
import java.util.Objects;

/**
 * The checkpointed state of a {@code DatasetSource} enumerator: the run's start (once chosen), the
 * number of stripes and the stripes not yet handed to any reader.
 *
 * <p>Before the first reader registers nothing is chosen: {@link #started()} is false and the
 * stripes are made when the run starts. Keeping the run start here is what lets a job restored
 * from a checkpoint stay on its original schedule.
 */
public final class EnumeratorState {

  /** Marks a run start not yet chosen. */
  public static final long NOT_STARTED = Long.MIN_VALUE;

  private final long runStartMillis;
  private final int stripes;
  private final List<StripeSplit> unassigned;

  public EnumeratorState(long runStartMillis, int stripes, List<StripeSplit> unassigned) {
    this.runStartMillis = runStartMillis;
    this.stripes = stripes;
    this.unassigned = List.copyOf(unassigned);
  }

  public boolean started() {
    return runStartMillis != NOT_STARTED;
  }

  public long runStartMillis() {
    return runStartMillis;
  }

  public int stripes() {
    return stripes;
  }

  public List<StripeSplit> unassigned() {
    return unassigned;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof EnumeratorState)) {
      return false;
    }
    EnumeratorState that = (EnumeratorState) o;
    return runStartMillis == that.runStartMillis
        && stripes == that.stripes
        && unassigned.equals(that.unassigned);
  }

  @Override
  public int hashCode() {
    return Objects.hash(runStartMillis, stripes, unassigned);
  }

  @Override
  public String toString() {
    return "EnumeratorState{runStartMillis="
        + runStartMillis
        + ", stripes="
        + stripes
        + ", unassigned="
        + unassigned
        + "}";
  }
}
