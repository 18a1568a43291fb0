package io.logbench.source;

import io.logbench.schedule.Schedule;

/** A test schedule: {@code lines} lines at a constant rate, or unpaced when the rate is 0. */
final class ConstantRateSchedule implements Schedule {

  private static final long serialVersionUID = 1L;

  private final long lines;
  private final double linesPerSecond;

  ConstantRateSchedule(long lines, double linesPerSecond) {
    this.lines = lines;
    this.linesPerSecond = linesPerSecond;
  }

  static ConstantRateSchedule unpaced(long lines) {
    return new ConstantRateSchedule(lines, 0);
  }

  @Override
  public long lines() {
    return lines;
  }

  @Override
  public long dueNanos(long index) {
    return paced() ? (long) (index * 1e9 / linesPerSecond) : 0;
  }

  @Override
  public long dueBy(long offsetNanos) {
    if (!paced()) {
      return lines;
    }
    return Math.min(lines, (long) Math.floor(offsetNanos * linesPerSecond / 1e9) + 1);
  }

  @Override
  public long durationNanos() {
    return lines == 0 ? 0 : dueNanos(lines - 1);
  }

  @Override
  public boolean paced() {
    return linesPerSecond > 0;
  }

  @Override
  public double targetRate(long offsetNanos) {
    return paced() ? linesPerSecond : Double.NaN;
  }
}
