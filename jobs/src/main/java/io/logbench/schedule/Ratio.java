package io.logbench.schedule;

import java.io.Serializable;
import java.math.BigInteger;

/**
 * A positive rational {@code p / q} applied to longs with exact floor and ceiling, on longs when
 * they fit and on BigInteger when not, so long runs never drift.
 */
final class Ratio implements Serializable {

  private static final long serialVersionUID = 1L;

  private final BigInteger p;
  private final BigInteger q;
  /** {@code p} and {@code q} as longs, or 0 when either does not fit. */
  private final long pl;
  private final long ql;

  Ratio(BigInteger p, BigInteger q) {
    if (p.signum() <= 0 || q.signum() <= 0) {
      throw new IllegalArgumentException("A ratio needs a positive numerator and denominator.");
    }
    BigInteger g = p.gcd(q);
    this.p = p.divide(g);
    this.q = q.divide(g);
    boolean small = this.p.bitLength() < 63 && this.q.bitLength() < 63;
    this.pl = small ? this.p.longValue() : 0;
    this.ql = small ? this.q.longValue() : 0;
  }

  /** {@code floor(x * p / q)}. */
  long floorMul(long x) {
    if (pl != 0) {
      return Exact.mulDivFloor(x, pl, ql);
    }
    return Exact.floorDiv(BigInteger.valueOf(x).multiply(p), q).longValueExact();
  }

  /** {@code ceil(x * q / p)}: the inverse direction, rounded up. */
  long ceilDivMul(long x) {
    if (pl != 0) {
      return Exact.mulDivCeil(x, ql, pl);
    }
    return Exact.ceilDiv(BigInteger.valueOf(x).multiply(q), p).longValueExact();
  }

  @Override
  public String toString() {
    return p + "/" + q;
  }
}
