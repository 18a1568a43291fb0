package io.logbench.metrics;

import java.util.Map;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * Creates a {@link LoopbackPrometheusReporter} from Flink's configuration: {@code
 * metrics.reporter.<name>.factory.class: io.logbench.metrics.LoopbackPrometheusReporterFactory}
 * with {@code metrics.reporter.<name>.host} (default {@value #DEFAULT_HOST}) and {@code .port}
 * (default {@value #DEFAULT_PORT}, Flink's usual Prometheus port).
 */
public final class LoopbackPrometheusReporterFactory implements MetricReporterFactory {

  /** The reporter's name in the configuration logbench builds for {@code --prometheus}. */
  public static final String NAME = "logbench_prometheus";
  public static final String HOST = "host";
  public static final String PORT = "port";
  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_PORT = 9249;

  @Override
  public MetricReporter createMetricReporter(Properties properties) {
    String host = properties.getProperty(HOST, DEFAULT_HOST).trim();
    String portText = properties.getProperty(PORT, Integer.toString(DEFAULT_PORT)).trim();
    int port;
    try {
      port = Integer.parseInt(portText);
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("The Prometheus reporter's port '" + portText
          + "' is not valid; expected a port from 0 to 65535.");
    }
    return new LoopbackPrometheusReporter(host, port);
  }

  /**
   * Flink's reporter option that, true by default, replaces every character of a label value but
   * {@code [a-zA-Z0-9:_]} with {@code _}: a histogram's {@code le="0.05"} and {@code le="+Inf"}
   * would become {@code 0_05} and {@code _Inf}, which {@code histogram_quantile} cannot read
   * ({@link HistogramBuckets}), and backend names lose their dashes. logbench turns it off.
   */
  public static final String FILTER_LABEL_VALUES = "filterLabelValueCharacters";

  /** The Flink configuration that starts this reporter on {@code host:port}, label values as they are. */
  public static Configuration configuration(String host, int port) {
    String prefix = "metrics.reporter." + NAME + ".";
    return Configuration.fromMap(Map.of(
        prefix + "factory.class", LoopbackPrometheusReporterFactory.class.getName(),
        prefix + HOST, host,
        prefix + PORT, Integer.toString(port),
        prefix + FILTER_LABEL_VALUES, "false"));
  }
}
