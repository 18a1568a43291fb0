package io.logbench.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Summing a metric's samples from a /metrics page. */
class PrometheusTextTest {

  private static final String PAGE = String.join("\n",
      "# HELP vl_data_size_bytes Data size",
      "# TYPE vl_data_size_bytes gauge",
      "vl_data_size_bytes{type=\"storage\"} 1.5e3",
      "vl_data_size_bytes{type=\"indexdb\"} 250",
      "vl_data_size_bytes_other 99",
      "loki_ingester_chunk_stored_bytes_total{tenant=\"a\",x=\"}\"} 10 1700000000000",
      "loki_ingester_chunk_stored_bytes_total{tenant=\"b\"} 32",
      "plain_metric 7",
      "");

  @Test
  void sumsEveryLabelSetOfTheMetricOnly() {
    assertThat(PrometheusText.sum(PAGE, "vl_data_size_bytes").getAsDouble()).isEqualTo(1750.0);
    assertThat(PrometheusText.sum(PAGE, "loki_ingester_chunk_stored_bytes_total").getAsDouble()).isEqualTo(42.0);
    assertThat(PrometheusText.sum(PAGE, "plain_metric").getAsDouble()).isEqualTo(7.0);
    assertThat(PrometheusText.sum(PAGE, "vl_data_size")).isEmpty();
  }

  @Test
  void sumsOnlyTheLabelSetsThatHoldEveryLabelAsked() {
    assertThat(PrometheusText.sum(PAGE, "loki_ingester_chunk_stored_bytes_total", "tenant=\"a\"").getAsDouble())
        .isEqualTo(10.0);
    assertThat(PrometheusText.sum(PAGE, "loki_ingester_chunk_stored_bytes_total", "tenant=\"b\"").getAsDouble())
        .isEqualTo(32.0);
    assertThat(PrometheusText.sum(PAGE, "loki_ingester_chunk_stored_bytes_total", "tenant=\"a\"", "x=\"}\""))
        .hasValue(10.0);
    // a label value that only starts like the one asked, and a metric without labels, never match
    assertThat(PrometheusText.sum(PAGE, "vl_data_size_bytes", "type=\"stor\"")).isEmpty();
    assertThat(PrometheusText.sum(PAGE, "plain_metric", "a=\"b\"")).isEmpty();
  }

  @Test
  void aSampleWithoutANumberIsAnError() {
    assertThatThrownBy(() -> PrometheusText.sum("m{a=\"b\"} many\n", "m"))
        .hasMessage("The sample \"m{a=\"b\"} many\" of m has no number for a value.");
  }
}
