package io.logbench.sink.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.count.CountReader;
import io.logbench.count.internal.CountQueries;
import io.logbench.count.internal.ReaderSettings;
import io.logbench.count.internal.WindowRange;
import io.logbench.http.TlsSettings;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Counts an Elasticsearch or OpenSearch index back per window with one {@code _search?size=0}
 * per {@link Builder#maxBuckets} windows: a {@code range} filter on {@code @timestamp} over
 * {@code [from, to)} and a {@code date_histogram} with {@code fixed_interval} = the window,
 * {@code offset} = where the windows start modulo their size (so buckets follow the grid, e.g. a
 * zone's midnight), {@code min_doc_count: 0} and {@code extended_bounds}, so an empty window is
 * answered 0. Buckets are {@code [t, t + interval)}, so a document exactly on a boundary counts in
 * the window it starts. The buckets must add up to the exact {@code hits.total}
 * ({@code track_total_hits: true}), or the answer is refused.
 *
 * <p><b>Runs.</b> With a run id every query also filters on {@code logbench_run} with a {@code
 * term} (on the field, or on its {@code .keyword} sub-field should dynamic mapping have made the
 * field {@code text}), so only the run's documents count; without one, every document does.
 *
 * <p>Documents are searchable only after a refresh, so each {@link #counts} and {@link
 * #sequenceIds} first asks for {@code POST <index>/_refresh}, unless built with {@code
 * refresh(false)}: a reader that measures when documents become visible must see what a search
 * sees, after the index's own refresh interval. An index that does not exist holds nothing: its
 * windows count 0 (without the refresh, a search of it fails instead).
 *
 * <p>Defaults: {@value #DEFAULT_MAX_BUCKETS} buckets per request (OpenSearch refuses more than
 * {@code search.max_buckets}, 65,535), {@link #DEFAULT_REQUEST_TIMEOUT} per request, {@link
 * #DEFAULT_CONNECT_TIMEOUT} to connect.
 */
public final class ElasticsearchCountReader implements CountReader {

  public static final int DEFAULT_MAX_BUCKETS = 10_000;
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  /** Largest page of a drill-down ({@code index.max_result_window} is 10,000 by default). */
  static final int PAGE = 10_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String url;
  private final String index;
  private final String runId;
  private final String authorization;
  private final int maxBuckets;
  private final boolean forceRefresh;
  private final CountQueries http;
  private final EsRequests requests;

  private ElasticsearchCountReader(Builder b) {
    this.url = b.url();
    this.index = b.index();
    this.runId = b.runId();
    this.authorization = b.authorization;
    this.maxBuckets = b.maxBuckets();
    this.forceRefresh = b.refresh;
    this.http =
        new CountQueries("Elasticsearch at " + b.url(), "elasticsearch-count", b.connectTimeout(), b.requestTimeout(),
            Map.of(), b.tls());
    this.requests = new EsRequests(http, url, index, authorization);
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException {
    WindowRange range = WindowRange.of(fromMillis, toMillis, windowMillis);
    long[] counts = new long[range.n()];
    if (range.n() == 0 || (forceRefresh && !refresh())) {
      return counts;
    }
    for (int first = 0; first < range.n(); first += maxBuckets) {
      int last = Math.min(range.n(), first + maxBuckets);
      countPart(range, first, last, counts);
    }
    return counts;
  }

  /** Counts windows {@code [first, last)} of {@code range} into {@code counts}. */
  private void countPart(WindowRange range, int first, int last, long[] counts) throws IOException {
    long from = range.start(first);
    long to = range.start(last);
    ObjectNode body = JSON.createObjectNode();
    body.put("size", 0);
    body.put("track_total_hits", true);
    body.set("query", query(from, to));
    ObjectNode histogram = EsRequests.dateHistogram(body.putObject("aggs").putObject("windows"), from, range.size(), 0);
    ObjectNode bounds = histogram.putObject("extended_bounds");
    bounds.put("min", from);
    bounds.put("max", to - 1);
    JsonNode answer = search(body, "the count search for [" + from + ", " + to + ")");
    long total = answer.path("hits").path("total").path("value").asLong(-1);
    JsonNode buckets = answer.path("aggregations").path("windows").path("buckets");
    if (total < 0 || !buckets.isArray()) {
      throw new IOException(
          http.backend() + " answered the count search for [" + from + ", " + to
              + ") without hits.total and buckets.");
    }
    long sum = 0;
    for (JsonNode bucket : buckets) {
      long key = bucket.path("key").asLong(Long.MIN_VALUE);
      long docs = bucket.path("doc_count").asLong(-1);
      int k = range.indexOf(key);
      if (docs == 0 && (key < from || key >= to)) {
        // extended_bounds combined with an offset can add an empty bucket past the range
        continue;
      }
      if (k < first || k >= last || range.start(k) != key || docs < 0) {
        throw new IOException(
            http.backend() + " answered a bucket " + bucket + " that is not one of the windows of "
                + range.size() + " ms in [" + from + ", " + to + ").");
      }
      counts[k] += docs;
      sum += docs;
    }
    if (sum != total) {
      throw new IOException(
          http.backend() + " answered buckets adding up to " + sum + " documents in [" + from + ", "
              + to + "), but " + total + " hits.");
    }
  }

  @Override
  public List<Long> sequenceIds(long fromMillis, long toMillis, int limit) throws IOException {
    List<Long> seqs = new ArrayList<>();
    if (limit <= 0 || toMillis <= fromMillis || (forceRefresh && !refresh())) {
      return seqs;
    }
    JsonNode after = null;
    while (seqs.size() < limit) {
      int page = Math.min(PAGE, limit - seqs.size());
      ObjectNode body = JSON.createObjectNode();
      body.put("size", page);
      body.put("track_total_hits", false);
      body.putArray("_source").add("seq");
      body.set("query", query(fromMillis, toMillis));
      // seq is unique within the run (its _id is <run id>-<seq>): a sound search_after key alone
      body.putArray("sort").addObject().put("seq", "asc");
      if (after != null) {
        body.set("search_after", after);
      }
      JsonNode hits = search(body, "the sequence id search").path("hits").path("hits");
      if (!hits.isArray()) {
        throw new IOException(http.backend() + " answered the sequence id search without hits.");
      }
      for (JsonNode hit : hits) {
        JsonNode seq = hit.path("_source").path("seq");
        if (!seq.canConvertToLong()) {
          throw new IOException(http.backend() + " answered a document without a numeric seq: " + hit.path("_id"));
        }
        seqs.add(seq.asLong());
        after = hit.path("sort");
      }
      if (hits.size() < page) {
        break;
      }
      if (!(after instanceof ArrayNode) || after.isEmpty()) {
        throw new IOException(http.backend() + " answered sorted hits without sort values.");
      }
    }
    return seqs;
  }

  /** Documents of {@code [from, to)}, of the run when there is a run id. */
  private ObjectNode query(long from, long to) {
    ObjectNode range = JSON.createObjectNode();
    ObjectNode timestamp = range.putObject("range").putObject("@timestamp");
    timestamp.put("gte", from);
    timestamp.put("lt", to);
    timestamp.put("format", "epoch_millis");
    if (runId == null) {
      return range;
    }
    ObjectNode query = JSON.createObjectNode();
    ArrayNode filter = query.putObject("bool").putArray("filter");
    filter.add(range);
    ObjectNode run = filter.addObject().putObject("bool");
    run.putArray("should")
        .add(term(RunContext.RUN_FIELD, runId))
        .add(term(RunContext.RUN_FIELD + ".keyword", runId));
    run.put("minimum_should_match", 1);
    return query;
  }

  private static ObjectNode term(String field, String value) {
    ObjectNode term = JSON.createObjectNode();
    term.putObject("term").put(field, value);
    return term;
  }

  /** Makes every stored document searchable; false when the index does not exist. */
  private boolean refresh() throws IOException {
    return requests.refresh();
  }

  /**
   * The index's store size ({@code GET <index>/_stats/store}), after a flush and once it has
   * settled ({@link EsStoreSettle}), waiting up to {@code timeout}; zero reads it as it stands.
   */
  EsStoreSettle.Outcome settledStore(java.time.Duration timeout) throws IOException {
    return EsStoreSettle.run(requests, http, index, timeout);
  }

  private JsonNode search(ObjectNode body, String what) throws IOException {
    return requests.post("/" + index + "/_search", JSON.writeValueAsBytes(body), what);
  }

  @Override
  public QueryStats stats() {
    return http.stats();
  }

  @Override
  public void close() {
    http.close();
  }

  @Override
  public String toString() {
    return "ElasticsearchCountReader{" + url + "/" + index + (runId == null ? "" : ", run " + runId)
        + (authorization == null ? "" : ", basic auth") + "}";
  }

  /** Settings of a reader; {@code url} is required. */
  public static final class Builder extends ReaderSettings<Builder> {
    private String authorization;
    private boolean refresh = true;

    private Builder() {
      super(ElasticsearchBackend.DEFAULT_INDEX, DEFAULT_MAX_BUCKETS, DEFAULT_REQUEST_TIMEOUT, DEFAULT_CONNECT_TIMEOUT);
    }

    /** The full {@code Authorization} header value (a secret: never logged or shown). */
    public Builder authorization(String authorization) {
      this.authorization = authorization;
      return this;
    }

    /**
     * Whether each count and id search first refreshes the index (true by default, so counts are
     * exact right after an ack); false for a reader that measures visibility.
     */
    public Builder refresh(boolean on) {
      this.refresh = on;
      return this;
    }

    public ElasticsearchCountReader build() {
      check("an Elasticsearch count reader", 65_535, "search.max_buckets");
      Objects.requireNonNull(index, "The index of an Elasticsearch count reader is required.");
      return new ElasticsearchCountReader(this);
    }
  }
}
