package io.logbench.schedule;

import java.math.BigInteger;

/** Exact integer arithmetic for schedules: products that may pass 64 bits, divided and rounded. */
final class Exact {

  static final long NANOS_PER_SECOND = 1_000_000_000L;
  static final long NANOS_PER_MILLI = 1_000_000L;

  private Exact() {}

  /** {@code floor(a * b / c)} for {@code c > 0}, exact even when {@code a * b} overflows. */
  static long mulDivFloor(long a, long b, long c) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
      return Math.floorDiv(lo, c);
    }
    return floorDiv(BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)), BigInteger.valueOf(c))
        .longValueExact();
  }

  /** {@code ceil(a * b / c)} for {@code c > 0}, exact even when {@code a * b} overflows. */
  static long mulDivCeil(long a, long b, long c) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
      return Math.floorDiv(lo, c) + (Math.floorMod(lo, c) == 0 ? 0 : 1);
    }
    return ceilDiv(BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)), BigInteger.valueOf(c))
        .longValueExact();
  }

  /** Floor division for {@code d > 0}. */
  static BigInteger floorDiv(BigInteger n, BigInteger d) {
    BigInteger[] qr = n.divideAndRemainder(d);
    return qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
  }

  /** Ceiling division for {@code d > 0}. */
  static BigInteger ceilDiv(BigInteger n, BigInteger d) {
    BigInteger[] qr = n.divideAndRemainder(d);
    return qr[1].signum() > 0 ? qr[0].add(BigInteger.ONE) : qr[0];
  }

  /**
   * A positive finite double as an exact fraction {num, den} of its shortest decimal form, so
   * that a configured 0.1 means one tenth rather than the nearest binary fraction.
   */
  static BigInteger[] decimalFraction(double x) {
    java.math.BigDecimal d = java.math.BigDecimal.valueOf(x).stripTrailingZeros();
    if (d.scale() > 0) {
      return new BigInteger[] {d.unscaledValue(), BigInteger.TEN.pow(d.scale())};
    }
    return new BigInteger[] {d.unscaledValue().multiply(BigInteger.TEN.pow(-d.scale())), BigInteger.ONE};
  }
}
