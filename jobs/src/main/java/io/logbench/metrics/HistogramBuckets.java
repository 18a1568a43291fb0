package io.logbench.metrics;

import io.logbench.sink.LatencyHistogram;
import java.util.Locale;
import java.util.function.Supplier;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * A {@link LatencyHistogram} of microseconds as the series of a Prometheus histogram in seconds,
 * through Flink gauges: {@code <name>_bucket} in a group {@code le=<upper bound>} (cumulative, one
 * per bound and {@code +Inf}), {@code <name>_count} and {@code <name>_sum}. Flink's own
 * histograms reach Prometheus as summaries (quantiles per task), which cannot be added up across
 * tasks or turned into a quantile over a time range; buckets can ({@code histogram_quantile(0.95,
 * sum by (le) (rate(..._bucket[5m])))}), which alert rules need. Each read takes the histogram's
 * current copy, so a scrape costs a copy per series, never anything per recorded value.
 */
public final class HistogramBuckets {

  /** Upper bounds, seconds: from a fast push to a minute (the visibility timeout's default). */
  public static final double[] DEFAULT_BOUNDS_SECONDS = {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

  private HistogramBuckets() {}

  /** Registers the series of {@code micros} under {@code name} in {@code group}. */
  public static void register(MetricGroup group, String name, Supplier<LatencyHistogram> micros, double[] bounds) {
    for (double b : bounds) {
      long top = Math.round(b * 1_000_000);
      group.addGroup("le", label(b)).gauge(name + "_bucket", (Gauge<Long>) () -> micros.get().countAtOrBelow(top));
    }
    group.addGroup("le", "+Inf").gauge(name + "_bucket", (Gauge<Long>) () -> micros.get().count());
    group.gauge(name + "_count", (Gauge<Long>) () -> micros.get().count());
    group.gauge(name + "_sum", (Gauge<Double>) () -> micros.get().sum() / 1e6);
  }

  /** A bound as Prometheus writes one: the shortest decimal ({@code 0.05}, {@code 1}, {@code 2.5}). */
  static String label(double bound) {
    String s = String.format(Locale.ROOT, "%s", bound);
    return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
  }
}
