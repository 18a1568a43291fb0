package io.logbench.schedule;

/**
 * Sends lines as fast as the backend takes them: no line has a due time, so every line is due
 * at once and the run's length is whatever the backend makes it.
 */
public final class UnpacedSchedule implements Schedule {

  private static final long serialVersionUID = 1L;

  private final long lines;

  /** An unpaced run of {@code lines} lines. */
  public UnpacedSchedule(long lines) {
    if (lines < 0) {
      throw new IllegalArgumentException(
          "An unpaced schedule needs a line count of 0 or more, but was " + lines + ".");
    }
    this.lines = lines;
  }

  @Override
  public long lines() {
    return lines;
  }

  @Override
  public long dueNanos(long index) {
    return 0;
  }

  @Override
  public long dueBy(long offsetNanos) {
    return lines;
  }

  @Override
  public long durationNanos() {
    return 0;
  }

  @Override
  public boolean paced() {
    return false;
  }

  @Override
  public double targetRate(long offsetNanos) {
    return Double.NaN;
  }

  @Override
  public String toString() {
    return "UnpacedSchedule[lines=" + lines + "]";
  }
}
