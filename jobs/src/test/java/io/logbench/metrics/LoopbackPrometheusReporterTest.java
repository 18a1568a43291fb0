package io.logbench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.sink.LatencyHistogram;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.CharacterFilter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.LogicalScopeProvider;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/**
 * What {@link LoopbackPrometheusReporter} serves for a {@link HistogramBuckets} histogram in a
 * {@code backend} group, made from {@link LoopbackPrometheusReporterFactory#configuration} as
 * {@code --prometheus} makes it: label values as they are ({@code le="0.05"}, {@code le="+Inf"},
 * {@code backend="loki-a"}), which {@code histogram_quantile} needs, where Flink's default
 * ({@code filterLabelValueCharacters} on) serves {@code 0_05}, {@code _Inf} and {@code loki_a}. The
 * reporter listens on 127.0.0.1, on a port of the system's choosing.
 */
class LoopbackPrometheusReporterTest {

  /**
   * A task's operator group as the reporter sees one: its logical scope (the series' name, keys
   * included) and its variables; gauges registered through it are handed to the reporter.
   */
  static final class Group extends UnregisteredMetricsGroup implements LogicalScopeProvider {
    private final String scope;
    private final Map<String, String> variables;
    private final LoopbackPrometheusReporter reporter;

    Group(String scope, Map<String, String> variables, LoopbackPrometheusReporter reporter) {
      this.scope = scope;
      this.variables = variables;
      this.reporter = reporter;
    }

    @Override
    public MetricGroup addGroup(String key, String value) {
      Map<String, String> v = new HashMap<>(variables);
      v.put("<" + key + ">", value);
      return new Group(scope + "_" + key, v, reporter);
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
      reporter.notifyOfAddedMetric(gauge, name, this);
      return gauge;
    }

    @Override
    public Map<String, String> getAllVariables() {
      return variables;
    }

    @Override
    public String getLogicalScope(CharacterFilter filter) {
      return scope;
    }

    @Override
    public String getLogicalScope(CharacterFilter filter, char delimiter) {
      return scope;
    }

    @Override
    public MetricGroup getWrappedMetricGroup() {
      return this;
    }
  }

  /** The exposition of a reporter opened with {@code config}, serving one histogram of backend loki-a. */
  private static String scrape(Map<String, String> config) throws Exception {
    Properties p = new Properties();
    config.forEach(p::setProperty);
    LoopbackPrometheusReporter reporter =
        (LoopbackPrometheusReporter) new LoopbackPrometheusReporterFactory().createMetricReporter(p);
    try {
      MetricConfig mc = new MetricConfig();
      config.forEach(mc::setProperty);
      reporter.open(mc);
      LatencyHistogram h = new LatencyHistogram();
      h.record(40_000); // 0.04 s
      h.record(700_000); // 0.7 s
      h.record(90_000_000); // 90 s: above every bound
      MetricGroup task = new Group("taskmanager_job_task_operator", Map.of("<job_name>", "logbench canary k8s"),
          reporter).addGroup("backend", "loki-a");
      HistogramBuckets.register(task, "visibleFromScheduleSeconds", () -> h, HistogramBuckets.DEFAULT_BOUNDS_SECONDS);
      HttpResponse<String> r = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + reporter.port() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      return r.body();
    } finally {
      reporter.close();
    }
  }

  /** The reporter's properties of {@code configuration(127.0.0.1, 0)}, without the metrics.reporter.NAME. prefix. */
  private static Map<String, String> properties() {
    Configuration c = LoopbackPrometheusReporterFactory.configuration("127.0.0.1", 0);
    String prefix = "metrics.reporter." + LoopbackPrometheusReporterFactory.NAME + ".";
    Map<String, String> out = new HashMap<>();
    c.toMap().forEach((k, v) -> out.put(k.substring(prefix.length()), v));
    return out;
  }

  @Test
  void bucketsAreServedWithTheirBoundsAsLabelValues() throws Exception {
    String body = scrape(properties());
    String bucket = "flink_taskmanager_job_task_operator_backend_le_visibleFromScheduleSeconds_bucket";
    assertThat(body)
        .containsPattern(bucket + "\\{[^}]*le=\"0.05\"[^}]*} 1.0")
        .containsPattern(bucket + "\\{[^}]*le=\"0.5\"[^}]*} 1.0")
        .containsPattern(bucket + "\\{[^}]*le=\"1\"[^}]*} 2.0")
        .containsPattern(bucket + "\\{[^}]*le=\"60\"[^}]*} 2.0")
        .containsPattern(bucket + "\\{[^}]*le=\"\\+Inf\"[^}]*} 3.0")
        .containsPattern("flink_taskmanager_job_task_operator_backend_visibleFromScheduleSeconds_count\\{[^}]*} 3.0")
        .contains("backend=\"loki-a\"", "job_name=\"logbench canary k8s\"");
  }

  @Test
  void flinksDefaultFilterWouldMangleThem() throws Exception {
    Map<String, String> config = properties();
    config.remove(LoopbackPrometheusReporterFactory.FILTER_LABEL_VALUES);
    String body = scrape(config);
    assertThat(body).contains("le=\"0_05\"", "le=\"_Inf\"", "backend=\"loki_a\"").doesNotContain("le=\"0.05\"");
  }
}
