package io.logbench.source;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.OperatorIOMetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.UserCodeClassLoader;

/** A hand-written reader context whose metric group keeps what is registered on it. */
public final class RecordingReaderContext implements SourceReaderContext {

  final Metrics metrics = new Metrics();

  @Override
  public SourceReaderMetricGroup metricGroup() {
    return metrics;
  }

  @Override
  public Configuration getConfiguration() {
    return new Configuration();
  }

  @Override
  public String getLocalHostName() {
    return "localhost";
  }

  @Override
  public int getIndexOfSubtask() {
    return 0;
  }

  @Override
  public void sendSplitRequest() {}

  @Override
  public void sendSourceEventToCoordinator(SourceEvent sourceEvent) {}

  @Override
  public UserCodeClassLoader getUserCodeClassLoader() {
    throw new UnsupportedOperationException();
  }

  /** Metric group keeping counters and gauges by name. */
  static final class Metrics extends UnregisteredMetricsGroup implements SourceReaderMetricGroup {
    final Map<String, Counter> counters = new HashMap<>();
    final Map<String, Gauge<?>> gauges = new HashMap<>();

    @Override
    public Counter counter(String name) {
      return counter(name, new SimpleCounter());
    }

    @Override
    public <C extends Counter> C counter(String name, C counter) {
      counters.put(name, counter);
      return counter;
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
      gauges.put(name, gauge);
      return gauge;
    }

    @Override
    public OperatorIOMetricGroup getIOMetricGroup() {
      return UnregisteredMetricsGroup.createOperatorIOMetricGroup();
    }

    @Override
    public Counter getNumRecordsInErrorsCounter() {
      return new SimpleCounter();
    }

    @Override
    public void setPendingBytesGauge(Gauge<Long> gauge) {}

    @Override
    public void setPendingRecordsGauge(Gauge<Long> gauge) {}
  }
}
