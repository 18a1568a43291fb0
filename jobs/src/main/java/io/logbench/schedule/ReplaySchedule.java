package io.logbench.schedule;

import io.logbench.dataset.Dataset;
import java.math.BigInteger;

/**
 * Replays the dataset's own timing at a speed-up factor {@code f}: run line {@code i} (dataset
 * line {@code firstIndex + i}) is due at {@code floor((ts(i) - ts(0)) in ns / f)}.
 *
 * <p>The factor is taken as its shortest decimal form; the arithmetic is exact. The run ends one
 * scaled millisecond after its last line, matching the span the compressed timestamps map.
 */
public final class ReplaySchedule implements Schedule {

  private static final long serialVersionUID = 1L;

  private final Dataset dataset;
  private final long firstIndex;
  private final long lines;
  private final double speedup;
  /** Dataset milliseconds to run nanoseconds: 1e6 / f. */
  private final Ratio nanosPerMilli;
  private final long firstMillis;
  private final long durationNanos;

  /**
   * Replays dataset lines {@code [firstIndex, firstIndex + lines)} at {@code speedup} times
   * their own pace.
   *
   * @throws IllegalArgumentException if the speed-up is not a positive finite number or the lines
   *     are not within the dataset
   */
  public ReplaySchedule(Dataset dataset, long firstIndex, long lines, double speedup) {
    if (!(speedup > 0) || Double.isInfinite(speedup)) {
      throw new IllegalArgumentException(
          "A replay speed-up must be a positive, finite factor, but was " + speedup + ".");
    }
    if (firstIndex < 0 || lines < 0 || firstIndex > dataset.size() - lines) {
      throw new IllegalArgumentException(
          "A replay of lines [" + firstIndex + ", " + firstIndex + " + " + lines
              + ") does not fit in dataset " + dataset.name() + " of " + dataset.size()
              + " lines.");
    }
    this.dataset = dataset;
    this.firstIndex = firstIndex;
    this.lines = lines;
    this.speedup = speedup;
    BigInteger[] fraction = Exact.decimalFraction(speedup);
    this.nanosPerMilli =
        new Ratio(fraction[1].multiply(BigInteger.valueOf(Exact.NANOS_PER_MILLI)), fraction[0]);
    this.firstMillis = lines == 0 ? 0 : dataset.timestampMillis(firstIndex);
    long lastMillis = lines == 0 ? 0 : dataset.timestampMillis(firstIndex + lines - 1);
    try {
      this.durationNanos = lines == 0 ? 0 : nanosPerMilli.floorMul(lastMillis - firstMillis + 1);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "A replay at " + speedup + "x of dataset " + dataset.name()
              + " would last longer than 292 years.", e);
    }
  }

  /** Replays the whole dataset at {@code speedup} times its own pace. */
  public static ReplaySchedule of(Dataset dataset, double speedup) {
    return new ReplaySchedule(dataset, 0, dataset.size(), speedup);
  }

  /** The speed-up factor. */
  public double speedup() {
    return speedup;
  }

  /** Dataset index of the run's line 0. */
  public long firstIndex() {
    return firstIndex;
  }

  @Override
  public long lines() {
    return lines;
  }

  @Override
  public long dueNanos(long index) {
    if (index < 0 || index >= lines) {
      throw new IllegalArgumentException(
          "Line index " + index + " is outside the replay's " + lines + " lines.");
    }
    return nanosPerMilli.floorMul(dataset.timestampMillis(firstIndex + index) - firstMillis);
  }

  @Override
  public long durationNanos() {
    return durationNanos;
  }

  @Override
  public boolean paced() {
    return true;
  }

  /** The dataset's own rate over the surrounding scaled second, times the speed-up. */
  @Override
  public double targetRate(long offsetNanos) {
    if (offsetNanos < 0 || offsetNanos >= durationNanos) {
      return 0;
    }
    long from = Math.max(0, offsetNanos - Exact.NANOS_PER_SECOND / 2);
    long to = Math.min(durationNanos, from + Exact.NANOS_PER_SECOND);
    from = Math.max(0, to - Exact.NANOS_PER_SECOND);
    long count = dueBy(to - 1) - dueBy(from - 1);
    return count * (double) Exact.NANOS_PER_SECOND / (to - from);
  }

  @Override
  public String toString() {
    return "ReplaySchedule[dataset=" + dataset.name() + ", firstIndex=" + firstIndex + ", lines="
        + lines + ", speedup=" + speedup + "]";
  }
}
