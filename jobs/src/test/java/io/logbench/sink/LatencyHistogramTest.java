package io.logbench.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The log-linear histogram against exact nearest-rank percentiles of known data. */
class LatencyHistogramTest {

  /** Nearest rank: the smallest value with at least p% of the values at or below it. */
  static long exact(long[] sorted, double p) {
    int rank = (int) Math.max(1, Math.ceil(p / 100.0 * sorted.length));
    return sorted[rank - 1];
  }

  @Test
  void smallValuesAreExact() {
    LatencyHistogram h = new LatencyHistogram();
    for (long v = 1; v <= 100; v++) {
      h.record(v);
    }
    assertThat(h.percentile(50)).isEqualTo(50);
    assertThat(h.percentile(95)).isEqualTo(95);
    assertThat(h.percentile(99)).isEqualTo(99);
    assertThat(h.percentile(100)).isEqualTo(100);
    assertThat(h.percentile(0)).isEqualTo(1);
    assertThat(h.min()).isEqualTo(1);
    assertThat(h.max()).isEqualTo(100);
    assertThat(h.mean()).isEqualTo(50.5);
  }

  @Test
  void percentilesAreWithinTwoSignificantDigitsOfExactOnesOverManyDecades() {
    SplittableRandom rnd = new SplittableRandom(3);
    long[] values = new long[100_000];
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 0; i < values.length; i++) {
      // log-uniform from 1 µs to about 3 hours
      values[i] = (long) Math.exp(rnd.nextDouble() * Math.log(1e10));
      h.record(values[i]);
    }
    Arrays.sort(values);
    for (double p : new double[] {1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100}) {
      long e = exact(values, p);
      long got = h.percentile(p);
      assertThat(got).as("p%s", p).isGreaterThanOrEqualTo(e).isLessThanOrEqualTo(e + e / 128);
    }
    assertThat(h.max()).isEqualTo(values[values.length - 1]);
    assertThat(h.count()).isEqualTo(values.length);
  }

  @Test
  void everyValueBelow256IsExact() {
    for (long v = 0; v < 256; v++) {
      LatencyHistogram h = new LatencyHistogram();
      h.record(v);
      h.record(v + 1000);
      assertThat(h.percentile(50)).as("value %d", v).isEqualTo(v);
    }
  }

  @Test
  void mergeEqualsRecordingEverythingInOne() {
    LatencyHistogram a = new LatencyHistogram();
    LatencyHistogram b = new LatencyHistogram();
    LatencyHistogram all = new LatencyHistogram();
    for (long v = 0; v < 5_000; v++) {
      long x = v * v % 1_000_003;
      (v % 2 == 0 ? a : b).record(x);
      all.record(x);
    }
    a.merge(b);
    for (double p : new double[] {50, 95, 99, 100}) {
      assertThat(a.percentile(p)).isEqualTo(all.percentile(p));
    }
    assertThat(a.count()).isEqualTo(5_000);
    assertThat(a.min()).isEqualTo(all.min());
  }

  @Test
  void hugeValuesAreCountedAndTheMaxStaysExact() {
    LatencyHistogram h = new LatencyHistogram();
    h.record(Long.MAX_VALUE / 2);
    h.record(-5);
    assertThat(h.count()).isEqualTo(2);
    assertThat(h.min()).isZero();
    assertThat(h.max()).isEqualTo(Long.MAX_VALUE / 2);
    assertThat(h.percentile(100)).isEqualTo(Long.MAX_VALUE / 2);
  }

  @Test
  void emptyHistogramAndBadPercentiles() {
    LatencyHistogram h = new LatencyHistogram();
    assertThat(h.percentile(99)).isZero();
    assertThat(h.max()).isZero();
    assertThatThrownBy(() -> h.percentile(101))
        .hasMessage("A percentile must be from 0 to 100, not 101.0.");
  }
}
