package io.logbench.metrics;

import java.util.Properties;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * Creates the {@link LiveMetrics} reporter: {@code metrics.reporter.logbench_live.factory.class:
 * io.logbench.metrics.LiveMetricsFactory} with {@code metrics.reporter.logbench_live.token}
 * ({@link LiveMetrics#configuration}).
 */
public final class LiveMetricsFactory implements MetricReporterFactory {

  @Override
  public MetricReporter createMetricReporter(Properties properties) {
    return new LiveMetrics();
  }
}
