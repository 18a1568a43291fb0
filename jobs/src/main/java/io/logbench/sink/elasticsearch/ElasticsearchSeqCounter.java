package io.logbench.sink.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.count.CountReader.QueryStats;
import io.logbench.count.SeqCounter;
import io.logbench.count.internal.CountQueries;
import io.logbench.pipeline.LineStamp;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Counts a run's documents in an Elasticsearch or OpenSearch index (or index pattern, such as
 * {@code logstash-*}) by the sequence id in their bodies, for a count block behind a pipeline's
 * write: the agent parsed the JSON line, so {@code logbench_run} and {@code logbench_seq} are
 * fields of each document. The run's documents are those whose {@code logbench_run} (a keyword,
 * or the {@code .keyword} of a text field as dynamic mapping makes it) is the run's id; they are
 * counted per id range with one {@code range} aggregation on {@code logbench_seq} (from inclusive,
 * to exclusive), at most {@value #RANGES_PER_SEARCH} ranges a search. The run and id filters are
 * exact and indexed, so no time filter is needed: every document of the run counts, whenever the
 * agent stamped it. The index is refreshed first, as for the time counts.
 */
final class ElasticsearchSeqCounter implements SeqCounter {

  /** The most id ranges one search counts. */
  static final int RANGES_PER_SEARCH = 1_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String index;
  private final String runId;
  private final CountQueries http;
  private final EsRequests requests;

  ElasticsearchSeqCounter(ElasticsearchBackend spec, String runId, String authorization) {
    SeqCounter.requireRun(spec.name(), runId);
    this.index = spec.index();
    this.runId = runId;
    this.http = new CountQueries("Elasticsearch at " + spec.url(), "elasticsearch-seq", spec.timeout(),
        spec.queryTimeout(), Map.of(), spec.tls());
    this.requests = new EsRequests(http, spec.url(), index, authorization);
  }

  /** The run's documents with ids in {@code [a, b)}. */
  ObjectNode query(long a, long b) {
    ObjectNode q = JSON.createObjectNode();
    ObjectNode bool = q.putObject("bool");
    ArrayNode should = bool.putArray("should");
    should.addObject().putObject("term").put(LineStamp.RUN, runId);
    should.addObject().putObject("term").put(LineStamp.RUN + ".keyword", runId);
    bool.put("minimum_should_match", 1);
    ObjectNode range = bool.putArray("filter").addObject().putObject("range").putObject(LineStamp.SEQ);
    range.put("gte", a);
    range.put("lt", b);
    return q;
  }

  @Override
  public long[] counts(long[] bounds, long fromMillis, long toMillis) throws IOException {
    int n = bounds.length - 1;
    long[] out = new long[Math.max(0, n)];
    if (n <= 0 || !requests.refresh()) {
      return out;
    }
    for (int first = 0; first < n; first += RANGES_PER_SEARCH) {
      int end = Math.min(n, first + RANGES_PER_SEARCH);
      String what = "the count search by sequence id of ids [" + bounds[first] + ", " + bounds[end] + ")";
      ObjectNode body = JSON.createObjectNode();
      body.put("size", 0);
      body.set("query", query(bounds[first], bounds[end]));
      ObjectNode range = body.putObject("aggs").putObject("w").putObject("range");
      range.put("field", LineStamp.SEQ);
      ArrayNode ranges = range.putArray("ranges");
      for (int k = first; k < end; k++) {
        ranges.addObject().put("key", Integer.toString(k - first)).put("from", bounds[k]).put("to", bounds[k + 1]);
      }
      JsonNode answer = requests.post("/" + index + "/_search", JSON.writeValueAsBytes(body), what);
      JsonNode buckets = answer.path("aggregations").path("w").path("buckets");
      if (!buckets.isArray() || buckets.size() != end - first) {
        throw http.unreadable(what, "not " + (end - first) + " range buckets", null);
      }
      for (JsonNode bucket : buckets) {
        String key = bucket.path("key").asText("");
        long docs = bucket.path("doc_count").asLong(-1);
        if (!key.matches("[0-9]{1,9}") || Integer.parseInt(key) >= end - first || docs < 0) {
          throw http.unreadable(what, "a bucket " + key + " that is none of those asked for", null);
        }
        out[first + Integer.parseInt(key)] = docs;
      }
    }
    return out;
  }

  @Override
  public List<Long> sequenceIds(long firstId, long endId, long fromMillis, long toMillis, int limit)
      throws IOException {
    List<Long> ids = new ArrayList<>();
    if (limit <= 0 || endId <= firstId || !requests.refresh()) {
      return ids;
    }
    String what = "the list of ids [" + firstId + ", " + endId + ")";
    ObjectNode body = JSON.createObjectNode();
    body.put("size", Math.min(limit, 10_000)); // index.max_result_window
    body.set("query", query(firstId, endId));
    body.putArray("_source").add(LineStamp.SEQ);
    body.putArray("sort").addObject().put(LineStamp.SEQ, "asc");
    JsonNode hits = requests.post("/" + index + "/_search", JSON.writeValueAsBytes(body), what).path("hits")
        .path("hits");
    for (JsonNode hit : hits) {
      JsonNode seq = hit.path("_source").path(LineStamp.SEQ);
      if (!seq.canConvertToLong() || !seq.asText().matches("[0-9]{1,18}")) {
        throw http.unreadable(what, "a document whose " + LineStamp.SEQ + " is not an id: " + seq, null);
      }
      ids.add(seq.asLong());
    }
    return ids;
  }

  @Override
  public QueryStats stats() {
    return http.stats();
  }

  @Override
  public void close() {
    http.close();
  }
}
