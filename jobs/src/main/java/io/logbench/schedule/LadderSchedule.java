package io.logbench.schedule;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A k6 {@code ramping-arrival-rate} ladder with start rate 0: each step ramps linearly from the
 * previous step's rate (0 for the first) to its own rate over {@code ramp}, then holds it for
 * {@code hold}.
 *
 * <p>With {@code N(t)} the integral of the rate from 0 to {@code t}, line {@code i} is due at
 * {@code floor(t_i)} ns, where {@code t_i} is the instant at which {@code N(t_i) = i} (line 0 at
 * 0); on a hold this is exactly {@link ConstantRateSchedule}'s formula. Each segment is inverted
 * in closed form (a quadratic on ramps) and then checked and corrected in exact integer
 * arithmetic, so due times are exact and therefore non-decreasing; {@link #dueBy} is a binary
 * search over {@link #dueNanos}, so the two always agree.
 *
 * <p>The run is {@code min(datasetLines, lines due before the ladder ends)} lines long.
 */
public final class LadderSchedule implements Schedule {

  private static final long serialVersionUID = 1L;

  /** Step rates of seed 000's k6 script, in lines per second. */
  public static final List<Long> SEED000_STEPS =
      List.of(5_000L, 10_000L, 20_000L, 40_000L, 50_000L, 70_000L, 100_000L);

  /** Ramp of seed 000's k6 script. */
  public static final Duration SEED000_RAMP = Duration.ofSeconds(30);

  /** Hold of seed 000's k6 script. */
  public static final Duration SEED000_HOLD = Duration.ofMinutes(2);

  private static final BigInteger TWO_E9 = BigInteger.valueOf(2 * Exact.NANOS_PER_SECOND);

  private final long[] rates;
  private final long rampNanos;
  private final long holdNanos;
  private final long endNanos;
  private final long lines;
  private final long ladderLines;
  private final long durationNanos;

  // Lines are counted in units of 1 / scale, with scale = 2e9 * ramp (ns), so that the integral
  // at any integer nanosecond is an integer: on a ramp of length R from a to b after u ns it
  // grows by 2Rau + (b - a)u^2, on a hold at b by 2Rbu (R is taken as 1 when there is no ramp).
  private final long rampUnit;
  private final BigInteger scale;
  /** Scaled integral at the start of each step's ramp, of its hold, and at its end. */
  private final BigInteger[] atRampStart;
  private final BigInteger[] atHoldStart;
  private final BigInteger[] atStepEnd;
  // Fast path: when a hold starts on a whole line n0, its lines n0..last are due at
  // holdStart + floor((i - n0) * 1e9 / rate), in long arithmetic (first is -1 otherwise).
  private final long[] holdFirstLine;
  private final long[] holdLastLine;

  /**
   * A ladder over {@code stepRates} (lines per second, each above 0).
   *
   * @param datasetLines lines the dataset has for this run; the run sends no more than these
   * @throws IllegalArgumentException if there are no steps, a rate is not above 0, the ramp or
   *     hold is negative, both are zero, or the ladder would not fit in a long of nanoseconds
   */
  public LadderSchedule(List<Long> stepRates, Duration ramp, Duration hold, long datasetLines) {
    if (stepRates == null || stepRates.isEmpty()) {
      throw new IllegalArgumentException("A ladder schedule needs at least one step rate.");
    }
    for (int j = 0; j < stepRates.size(); j++) {
      Long r = stepRates.get(j);
      if (r == null || r <= 0) {
        throw new IllegalArgumentException(
            "Every ladder step rate must be above 0 lines per second, but step " + j + " is "
                + r + ".");
      }
    }
    if (ramp.isNegative() || hold.isNegative()) {
      throw new IllegalArgumentException(
          "A ladder's ramp and hold cannot be negative, but were " + ramp + " and " + hold + ".");
    }
    if (ramp.isZero() && hold.isZero()) {
      throw new IllegalArgumentException("A ladder's ramp and hold cannot both be zero.");
    }
    if (datasetLines < 0) {
      throw new IllegalArgumentException(
          "A ladder needs a dataset line count of 0 or more, but was " + datasetLines + ".");
    }
    this.rates = stepRates.stream().mapToLong(Long::longValue).toArray();
    int k = rates.length;
    try {
      this.rampNanos = ramp.toNanos();
      this.holdNanos = hold.toNanos();
      this.endNanos = Math.multiplyExact(k, Math.addExact(rampNanos, holdNanos));
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "A ladder of " + k + " steps of " + ramp + " ramp and " + hold
              + " hold would last longer than 292 years.", e);
    }
    this.rampUnit = rampNanos > 0 ? rampNanos : 1;
    this.scale = TWO_E9.multiply(BigInteger.valueOf(rampUnit));
    this.atRampStart = new BigInteger[k];
    this.atHoldStart = new BigInteger[k];
    this.atStepEnd = new BigInteger[k];
    BigInteger acc = BigInteger.ZERO;
    BigInteger r = BigInteger.valueOf(rampNanos);
    for (int j = 0; j < k; j++) {
      atRampStart[j] = acc;
      long a = j == 0 ? 0 : rates[j - 1];
      long b = rates[j];
      acc = acc.add(BigInteger.valueOf(a + b).multiply(r).multiply(r));
      atHoldStart[j] = acc;
      acc = acc.add(holdArea(b, holdNanos));
      atStepEnd[j] = acc;
    }
    this.holdFirstLine = new long[k];
    this.holdLastLine = new long[k];
    for (int j = 0; j < k; j++) {
      BigInteger[] qr = atHoldStart[j].divideAndRemainder(scale);
      holdFirstLine[j] = qr[1].signum() == 0 ? qr[0].longValueExact() : -1;
      holdLastLine[j] = atStepEnd[j].divide(scale).longValueExact();
    }
    // #{i : t_i < end} = ceil(N(end)).
    this.ladderLines = Exact.ceilDiv(acc, scale).longValueExact();
    this.lines = Math.min(datasetLines, ladderLines);
    this.durationNanos = lines == ladderLines ? endNanos : dueNanos(lines);
  }

  /** Seed 000's k6 ladder (5k to 100k lines/s, 30 s ramps, 2 min holds). */
  public static LadderSchedule seed000(long datasetLines) {
    return new LadderSchedule(SEED000_STEPS, SEED000_RAMP, SEED000_HOLD, datasetLines);
  }

  /** The steps, with their offsets, for reports. */
  public List<LadderStep> steps() {
    List<LadderStep> steps = new ArrayList<>(rates.length);
    for (int j = 0; j < rates.length; j++) {
      long start = rampStart(j);
      steps.add(
          new LadderStep(j, rates[j], start, start + rampNanos, start + rampNanos + holdNanos));
    }
    return Collections.unmodifiableList(steps);
  }

  /** Offset at which the last hold ends. */
  public long endNanos() {
    return endNanos;
  }

  /** Lines the ladder itself has room for, whatever the dataset's size. */
  public long ladderLines() {
    return ladderLines;
  }

  @Override
  public long lines() {
    return lines;
  }

  /**
   * {@inheritDoc} Defined for every index from 0; past the ladder's end the last rate is taken
   * to go on.
   */
  @Override
  public long dueNanos(long index) {
    if (index < 0) {
      throw new IllegalArgumentException("A line index cannot be negative, but was " + index + ".");
    }
    int h = firstHoldEndingAtOrAfter(index);
    if (h < rates.length && holdFirstLine[h] >= 0 && index >= holdFirstLine[h]) {
      return rampStart(h) + rampNanos
          + Exact.mulDivFloor(index - holdFirstLine[h], Exact.NANOS_PER_SECOND, rates[h]);
    }
    BigInteger target = scale.multiply(BigInteger.valueOf(index));
    int j = firstStepEndingAtOrAfter(target);
    if (j == rates.length) {
      // Past the ladder: the last hold goes on.
      int last = rates.length - 1;
      return rampStart(last) + rampNanos + holdOffset(rates[last], target.subtract(atHoldStart[last]));
    }
    if (rampNanos > 0 && target.compareTo(atHoldStart[j]) <= 0) {
      return rampStart(j) + rampOffset(j == 0 ? 0 : rates[j - 1], rates[j], target.subtract(atRampStart[j]));
    }
    return rampStart(j) + rampNanos + holdOffset(rates[j], target.subtract(atHoldStart[j]));
  }

  /**
   * Closed form of the ladder's lines due strictly before {@code offsetNanos}, {@code
   * ceil(N(offset))} (not capped by the dataset); equal to {@code dueBy(offset - 1)} within the
   * run. Used to cross-check the binary search.
   */
  long linesDueBefore(long offsetNanos) {
    if (offsetNanos <= 0) {
      return 0;
    }
    if (offsetNanos >= endNanos) {
      return ladderLines;
    }
    int j = (int) (offsetNanos / (rampNanos + holdNanos));
    long u = offsetNanos - rampStart(j);
    BigInteger scaled;
    if (u < rampNanos) {
      long a = j == 0 ? 0 : rates[j - 1];
      scaled = atRampStart[j].add(rampArea(a, rates[j], u));
    } else {
      scaled = atHoldStart[j].add(holdArea(rates[j], u - rampNanos));
    }
    return Exact.ceilDiv(scaled, scale).longValueExact();
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
    if (offsetNanos < 0 || offsetNanos >= durationNanos) {
      return 0;
    }
    int j = (int) (offsetNanos / (rampNanos + holdNanos));
    long u = offsetNanos - rampStart(j);
    if (u < rampNanos) {
      double a = j == 0 ? 0 : rates[j - 1];
      return a + (rates[j] - a) * u / rampNanos;
    }
    return rates[j];
  }

  private long rampStart(int j) {
    return j * (rampNanos + holdNanos);
  }

  private int firstHoldEndingAtOrAfter(long index) {
    int lo = 0;
    int hi = rates.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (holdLastLine[mid] < index) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private int firstStepEndingAtOrAfter(BigInteger target) {
    int lo = 0;
    int hi = rates.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (atStepEnd[mid].compareTo(target) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Scaled lines of a ramp from {@code a} to {@code b} after {@code u} ns: 2Rau + (b-a)u^2. */
  private BigInteger rampArea(long a, long b, long u) {
    BigInteger bu = BigInteger.valueOf(u);
    return BigInteger.valueOf(2 * a)
        .multiply(BigInteger.valueOf(rampNanos))
        .add(BigInteger.valueOf(b - a).multiply(bu))
        .multiply(bu);
  }

  /** Scaled lines of a hold at {@code b} after {@code u} ns: 2Rbu. */
  private BigInteger holdArea(long b, long u) {
    return BigInteger.valueOf(2 * b)
        .multiply(BigInteger.valueOf(rampUnit))
        .multiply(BigInteger.valueOf(u));
  }

  /** The largest u in [0, R] with rampArea(u) <= d (rampArea is increasing there). */
  private long rampOffset(long a, long b, BigInteger d) {
    // Rationalised root of (b-a)u^2 + 2Rau - d = 0: stable for a = 0, a = b and b < a alike.
    double dd = d.doubleValue();
    double ra = (double) rampNanos * a;
    double root = dd / (ra + Math.sqrt(ra * ra + (double) (b - a) * dd));
    long u = Double.isFinite(root) ? (long) Math.floor(root) : 0;
    u = Math.max(0, Math.min(rampNanos, u));
    while (u > 0 && rampArea(a, b, u).compareTo(d) > 0) {
      u--;
    }
    while (u < rampNanos && rampArea(a, b, u + 1).compareTo(d) <= 0) {
      u++;
    }
    return u;
  }

  /** The largest u >= 0 with holdArea(u) <= d. */
  private long holdOffset(long b, BigInteger d) {
    return d.divide(BigInteger.valueOf(2 * b).multiply(BigInteger.valueOf(rampUnit)))
        .longValueExact();
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("LadderSchedule[steps=");
    for (int j = 0; j < rates.length; j++) {
      s.append(j == 0 ? "" : ",").append(rates[j]);
    }
    return s.append(" lines/s, ramp=").append(Duration.ofNanos(rampNanos))
        .append(", hold=").append(Duration.ofNanos(holdNanos))
        .append(", lines=").append(lines).append(']').toString();
  }
}
