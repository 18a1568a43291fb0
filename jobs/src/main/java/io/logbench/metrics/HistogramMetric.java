package io.logbench.metrics;

import io.logbench.sink.LatencyHistogram;
import java.util.function.Supplier;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.HistogramStatistics;

/**
 * A Flink {@link Histogram} view of a {@link LatencyHistogram}: statistics come from a fresh copy
 * on every read. Values are recorded by the delivery, not through {@link #update}.
 */
public final class HistogramMetric implements Histogram {

  private final Supplier<LatencyHistogram> snapshot;

  public HistogramMetric(Supplier<LatencyHistogram> snapshot) {
    this.snapshot = snapshot;
  }

  /** A copy of the histogram now, for exact merging across tasks. */
  public LatencyHistogram snapshot() {
    return snapshot.get();
  }

  @Override
  public void update(long value) {
    throw new UnsupportedOperationException("This histogram is written by the delivery, not the metric.");
  }

  @Override
  public long getCount() {
    return snapshot.get().count();
  }

  @Override
  public HistogramStatistics getStatistics() {
    LatencyHistogram h = snapshot.get();
    return new HistogramStatistics() {
      @Override
      public double getQuantile(double quantile) {
        return h.percentile(Math.max(0, Math.min(100, quantile * 100)));
      }

      /** Buckets, not samples, are kept; reporters use the quantiles. */
      @Override
      public long[] getValues() {
        return new long[0];
      }

      @Override
      public int size() {
        return (int) Math.min(Integer.MAX_VALUE, h.count());
      }

      @Override
      public double getMean() {
        return h.mean();
      }

      @Override
      public double getStdDev() {
        return 0;
      }

      @Override
      public long getMax() {
        return h.max();
      }

      @Override
      public long getMin() {
        return h.min();
      }
    };
  }
}
