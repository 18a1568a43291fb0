package io.logbench.schedule;

import java.math.BigInteger;

/**
 * Sends lines at a constant rate: line {@code i} is due at {@code floor(i * 1e9 / rate)} ns,
 * computed exactly so that billions of lines never drift.
 *
 * <p>The rate is taken as its shortest decimal form (0.1 lines/s is exactly one tenth).
 */
public final class ConstantRateSchedule implements Schedule {

  private static final long serialVersionUID = 1L;

  private final double rate;
  private final long lines;
  private final Ratio nanosPerLine;
  private final long durationNanos;

  /**
   * A schedule of {@code lines} lines at {@code ratePerSecond} lines per second.
   *
   * @throws IllegalArgumentException if the rate is not a positive finite number, the line count
   *     is negative, or the run would not fit in a long of nanoseconds
   */
  public ConstantRateSchedule(double ratePerSecond, long lines) {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException(
          "A constant rate must be a positive, finite number of lines per second, but was "
              + ratePerSecond + ".");
    }
    if (lines < 0) {
      throw new IllegalArgumentException(
          "A constant-rate schedule needs a line count of 0 or more, but was " + lines + ".");
    }
    this.rate = ratePerSecond;
    this.lines = lines;
    BigInteger[] fraction = Exact.decimalFraction(ratePerSecond);
    this.nanosPerLine =
        new Ratio(fraction[1].multiply(BigInteger.valueOf(Exact.NANOS_PER_SECOND)), fraction[0]);
    try {
      this.durationNanos = nanosPerLine.floorMul(lines);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          lines + " lines at " + ratePerSecond + " lines/s would last longer than 292 years.", e);
    }
  }

  /**
   * The number of lines a schedule at {@code ratePerSecond} has due strictly before {@code
   * durationNanos}: {@code ceil(duration * rate / 1e9)}, exactly, without a schedule of that many
   * lines (a run bounded only by its duration).
   */
  public static long linesBefore(double ratePerSecond, long durationNanos) {
    if (durationNanos <= 0) {
      return 0;
    }
    return new ConstantRateSchedule(ratePerSecond, 0).nanosPerLine.ceilDivMul(durationNanos);
  }

  /** The rate in lines per second. */
  public double rate() {
    return rate;
  }

  @Override
  public long lines() {
    return lines;
  }

  /** {@inheritDoc} Defined for every index from 0 to {@link #lines()} (the end of the run). */
  @Override
  public long dueNanos(long index) {
    if (index < 0) {
      throw new IllegalArgumentException("A line index cannot be negative, but was " + index + ".");
    }
    return nanosPerLine.floorMul(index);
  }

  @Override
  public long dueBy(long offsetNanos) {
    if (offsetNanos < 0 || lines == 0) {
      return 0;
    }
    // Checked first so that offsetNanos + 1 below cannot overflow.
    if (offsetNanos >= dueNanos(lines - 1)) {
      return lines;
    }
    // floor(i * p / q) <= off  <=>  i < (off + 1) * q / p
    return Math.min(lines, nanosPerLine.ceilDivMul(offsetNanos + 1));
  }

  @Override
  public long durationNanos() {
    return durationNanos;
  }

  @Override
  public boolean paced() {
    return true;
  }

  @Override
  public double targetRate(long offsetNanos) {
    return offsetNanos >= 0 && offsetNanos < durationNanos ? rate : 0;
  }

  @Override
  public String toString() {
    return "ConstantRateSchedule[rate=" + rate + " lines/s, lines=" + lines + "]";
  }
}
