package io.logbench.schedule;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Lines of a run that are never sent: ranges {@code [from, to)} of run line indices (0 for the
 * run's first line), sorted and apart. A canary down for a while (killed, or stopped and started
 * again) skips the lines its schedule had due while it was down, so nothing is expected of them:
 * its source jumps over them and its expected counts leave them out ({@link
 * ExpectedCounts#withGaps}), so the time it was down is a gap, never missing lines. Immutable.
 */
public final class Gaps implements Serializable {

  private static final long serialVersionUID = 1L;

  private static final Gaps NONE = new Gaps(new long[0]);

  /** {@code from0, to0, from1, to1, ...}, ascending, each range non-empty, ranges apart. */
  private final long[] bounds;

  private Gaps(long[] bounds) {
    this.bounds = bounds;
  }

  /** No gap. */
  public static Gaps none() {
    return NONE;
  }

  /**
   * The gaps {@code ranges} ({@code {from, to}} each); empty ranges are dropped, overlapping or
   * touching ones merged.
   *
   * @throws IllegalArgumentException for a negative index or a range that ends before it starts
   */
  public static Gaps of(List<long[]> ranges) {
    List<long[]> sorted = new ArrayList<>();
    for (long[] r : ranges) {
      if (r.length != 2 || r[0] < 0 || r[1] < r[0]) {
        throw new IllegalArgumentException("A gap is a range [from, to) of line indices from 0, from <= to, not "
            + Arrays.toString(r) + ".");
      }
      if (r[1] > r[0]) {
        sorted.add(r.clone());
      }
    }
    sorted.sort((a, b) -> Long.compare(a[0], b[0]));
    List<long[]> merged = new ArrayList<>();
    for (long[] r : sorted) {
      long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (last != null && r[0] <= last[1]) {
        last[1] = Math.max(last[1], r[1]);
      } else {
        merged.add(r);
      }
    }
    long[] bounds = new long[merged.size() * 2];
    for (int i = 0; i < merged.size(); i++) {
      bounds[2 * i] = merged.get(i)[0];
      bounds[2 * i + 1] = merged.get(i)[1];
    }
    return bounds.length == 0 ? NONE : new Gaps(bounds);
  }

  /** These gaps and {@code [from, to)}. */
  public Gaps plus(long from, long to) {
    List<long[]> all = ranges();
    all.add(new long[] {from, to});
    return of(all);
  }

  /** The ranges, {@code {from, to}} each, ascending. */
  public List<long[]> ranges() {
    List<long[]> out = new ArrayList<>();
    for (int i = 0; i < bounds.length; i += 2) {
      out.add(new long[] {bounds[i], bounds[i + 1]});
    }
    return out;
  }

  public boolean isEmpty() {
    return bounds.length == 0;
  }

  /** Lines of the gaps with an index below {@code index}. */
  public long linesBefore(long index) {
    long n = 0;
    for (int i = 0; i < bounds.length && bounds[i] < index; i += 2) {
      n += Math.min(index, bounds[i + 1]) - bounds[i];
    }
    return n;
  }

  /** Whether line {@code index} is in a gap. */
  public boolean contains(long index) {
    for (int i = 0; i < bounds.length && bounds[i] <= index; i += 2) {
      if (index < bounds[i + 1]) {
        return true;
      }
    }
    return false;
  }

  /** {@code index} when it is in no gap, else the end of its gap (the first line sent after it). */
  public long skip(long index) {
    for (int i = 0; i < bounds.length && bounds[i] <= index; i += 2) {
      if (index < bounds[i + 1]) {
        return bounds[i + 1];
      }
    }
    return index;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Gaps g && Arrays.equals(bounds, g.bounds);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bounds);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("Gaps[");
    for (int i = 0; i < bounds.length; i += 2) {
      b.append(i == 0 ? "" : ", ").append('[').append(bounds[i]).append(", ").append(bounds[i + 1]).append(')');
    }
    return b.append(']').toString();
  }
}
