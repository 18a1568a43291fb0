package io.logbench.sink.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.query.KeyedAnswer;
import io.logbench.query.KeyedQuery;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ElasticsearchSearch's request body and answer parsing (the searches themselves run against a
 * real OpenSearch in QueryITCase).
 */
class ElasticsearchSearchTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long T0 = 1_619_838_000_000L; // 2021-05-01T00:00:00-03:00
  private static final long HOUR = 3_600_000L;

  private final ElasticsearchSearch search =
      new ElasticsearchSearch("http://127.0.0.1:1", "logs", "run-1", null, Duration.ofSeconds(1), 65_535);

  private static KeyedQuery query(int values, long from, int hours) {
    List<String> v = new ArrayList<>();
    for (int i = 0; i < values; i++) {
      v.add("page" + i);
    }
    return new KeyedQuery("path", v, from, from + hours * HOUR, HOUR);
  }

  @Test
  void bodyIsATermsAggregationInsideADateHistogramOfTheRunsDocuments() throws IOException {
    KeyedQuery q = query(300, T0, 744);
    JsonNode body = JSON.readTree(JSON.writeValueAsString(search.body(q, 0, 3, "path.keyword")));
    assertThat(body.path("size").asInt()).isZero();
    assertThat(body.path("track_total_hits").asBoolean()).isTrue();
    JsonNode filter = body.path("query").path("bool").path("filter");
    assertThat(filter.get(0).path("range").path("@timestamp").path("gte").asLong()).isEqualTo(T0);
    assertThat(filter.get(0).path("range").path("@timestamp").path("lt").asLong()).isEqualTo(T0 + 3 * HOUR);
    assertThat(filter.get(1).toString()).contains("{\"term\":{\"logbench_run\":\"run-1\"}}")
        .contains("{\"term\":{\"logbench_run.keyword\":\"run-1\"}}");
    JsonNode histogram = body.path("aggs").path("buckets").path("date_histogram");
    assertThat(histogram.path("fixed_interval").asText()).isEqualTo("3600000ms");
    assertThat(histogram.has("offset")).as("-03:00 hours are on the epoch's hour grid").isFalse();
    JsonNode terms = body.path("aggs").path("buckets").path("aggs").path("values").path("terms");
    assertThat(terms.path("field").asText()).isEqualTo("path.keyword");
    assertThat(terms.path("size").asInt()).isEqualTo(300 + ElasticsearchSearch.EXTRA_TERMS);
    // search.max_buckets: 65,535 / (300 + 10 + 1) histogram buckets a request
    assertThat(search.perRequest(q)).isEqualTo(210);
    // hours from a half-hour zone's midnight: the histogram is moved with an offset
    JsonNode half = JSON.readTree(JSON.writeValueAsString(search.body(query(6, T0 + 1_800_000L, 2), 0, 2, "s")));
    assertThat(half.path("aggs").path("buckets").path("date_histogram").path("offset").asText())
        .isEqualTo("+1800000ms");
  }

  @Test
  void answerIsReadPerBucketAndTermAndMustAddUp() throws IOException {
    KeyedQuery q = query(3, T0, 2);
    KeyedAnswer a = new KeyedAnswer(q);
    search.read(JSON.readTree("{\"hits\":{\"total\":{\"value\":9}},\"aggregations\":{\"buckets\":{\"buckets\":["
        + "{\"key\":" + T0 + ",\"doc_count\":4,\"values\":{\"sum_other_doc_count\":0,\"buckets\":["
        + "{\"key\":\"page0\",\"doc_count\":3},{\"key\":\"page2\",\"doc_count\":1}]}},"
        + "{\"key\":" + (T0 + HOUR) + ",\"doc_count\":5,\"values\":{\"sum_other_doc_count\":0,\"buckets\":["
        + "{\"key\":\"page9\",\"doc_count\":5}]}}]}}}"), q, 0, 2, "the test", a);
    assertThat(a.count(0, "page0")).isEqualTo(3);
    assertThat(a.count(0, "page2")).isEqualTo(1);
    assertThat(a.count(1, "page9")).as("a value the query did not list is kept").isEqualTo(5);

    assertThatThrownBy(() -> search.read(JSON.readTree("{\"hits\":{\"total\":{\"value\":4}},\"aggregations\":"
        + "{\"buckets\":{\"buckets\":[{\"key\":" + T0 + ",\"doc_count\":4,\"values\":{\"sum_other_doc_count\":1,"
        + "\"buckets\":[{\"key\":\"page0\",\"doc_count\":3}]}}]}}}"), q, 0, 2, "the test", new KeyedAnswer(q)))
        .isInstanceOf(IOException.class).hasMessageContaining("more values of path");
    assertThatThrownBy(() -> search.read(JSON.readTree("{\"hits\":{\"total\":{\"value\":4}},\"aggregations\":"
        + "{\"buckets\":{\"buckets\":[{\"key\":" + (T0 + 60_000) + ",\"doc_count\":4,\"values\":{"
        + "\"buckets\":[{\"key\":\"page0\",\"doc_count\":4}]}}]}}}"), q, 0, 2, "the test", new KeyedAnswer(q)))
        .isInstanceOf(IOException.class).hasMessageContaining("not one of the buckets");
    assertThatThrownBy(() -> search.read(JSON.readTree("{\"hits\":{\"total\":{\"value\":5}},\"aggregations\":"
        + "{\"buckets\":{\"buckets\":[{\"key\":" + T0 + ",\"doc_count\":4,\"values\":{"
        + "\"buckets\":[{\"key\":\"page0\",\"doc_count\":4}]}}]}}}"), q, 0, 2, "the test", new KeyedAnswer(q)))
        .isInstanceOf(IOException.class).hasMessageContaining("but 5 hits");
  }
}
