package io.logbench.sink.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.count.internal.CountQueries;
import io.logbench.count.internal.CountQueries.Answer;
import io.logbench.http.TlsSettings;
import io.logbench.query.KeyedAnswer;
import io.logbench.query.KeyedQuery;
import io.logbench.query.KeyedSearch;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The keyed search of an Elasticsearch or OpenSearch index, as Kibana's date histogram split by
 * terms: one {@code _search?size=0} with a {@code range} on {@code @timestamp} and a {@code term}
 * on the run's {@code logbench_run} (or its {@code .keyword}), and a {@code terms} aggregation on
 * the key inside a {@code date_histogram} ({@code fixed_interval} = the bucket).
 *
 * <p><b>Buckets.</b> A {@code fixed_interval} histogram's buckets are {@code [t, t + interval)}
 * from the epoch, moved onto the query's grid (a zone's midnight) with {@code offset}, as the
 * count reader does. Not {@code time_zone}: across a daylight-saving change it would move the
 * buckets with the wall clock, while logbench's buckets keep the first day's grid.
 *
 * <p><b>Field.</b> Stream labels are mapped dynamically: a string becomes {@code text} with a
 * {@code keyword} sub-field. The search asks {@code _field_caps} once per key and aggregates on
 * the key itself when it is aggregatable (mapped as keyword), else on {@code <key>.keyword}.
 * Documents without the field count under the value "" ({@code missing}).
 *
 * <p><b>Limits.</b> The terms ask for every value of the dataset and some more ({@code size} =
 * values + {@value #EXTRA_TERMS}), and an answer with {@code sum_other_doc_count} above 0 (even
 * more values) is refused rather than cut. {@code search.max_buckets} (65,535 in OpenSearch and
 * in Elasticsearch 7.x and later) caps histogram buckets times their terms, so one request covers
 * at most {@code maxBuckets / (values + 1)} histogram buckets and longer ranges are split. Each
 * search first refreshes the index (documents are searchable only after a refresh); an index that
 * does not exist holds nothing.
 */
public final class ElasticsearchSearch implements KeyedSearch {

  /** Terms asked beyond the dataset's values, to see values the dataset never makes. */
  public static final int EXTRA_TERMS = 10;
  /** OpenSearch's {@code search.max_buckets}. */
  public static final int DEFAULT_MAX_BUCKETS = 65_535;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String url;
  private final String index;
  private final String runId;
  private final String authorization;
  private final int maxBuckets;
  private final CountQueries http;
  private final EsRequests requests;
  private final Map<String, String> fields = new HashMap<>();

  ElasticsearchSearch(String url, String index, String runId, String authorization, Duration requestTimeout,
      int maxBuckets) {
    this(url, index, runId, authorization, requestTimeout, maxBuckets, TlsSettings.DEFAULT);
  }

  ElasticsearchSearch(String url, String index, String runId, String authorization, Duration requestTimeout,
      int maxBuckets, TlsSettings tls) {
    this.url = url;
    this.index = index;
    this.runId = runId;
    this.authorization = authorization;
    this.maxBuckets = maxBuckets;
    this.http = new CountQueries("Elasticsearch at " + url, "elasticsearch-search",
        ElasticsearchCountReader.DEFAULT_CONNECT_TIMEOUT, requestTimeout, Map.of(), tls);
    this.requests = new EsRequests(http, url, index, authorization);
  }

  @Override
  public String language() {
    return "Elasticsearch aggregation";
  }

  @Override
  public String text(KeyedQuery q) {
    String field = fields.getOrDefault(q.key(), q.key() + ".keyword");
    return "POST /" + index + "/_search " + body(q, 0, Math.min(q.buckets(), perRequest(q)), field);
  }

  /** Histogram buckets per request under {@code search.max_buckets}. */
  int perRequest(KeyedQuery q) {
    return Math.max(1, maxBuckets / (q.values().size() + EXTRA_TERMS + 1));
  }

  ObjectNode body(KeyedQuery q, int first, int n, String field) {
    long from = q.bucketStart(first);
    long to = q.bucketStart(first + n);
    ObjectNode body = JSON.createObjectNode();
    body.put("size", 0);
    body.put("track_total_hits", true);
    ObjectNode range = JSON.createObjectNode();
    ObjectNode timestamp = range.putObject("range").putObject("@timestamp");
    timestamp.put("gte", from);
    timestamp.put("lt", to);
    timestamp.put("format", "epoch_millis");
    if (runId == null) {
      body.set("query", range);
    } else {
      ArrayNode filter = body.putObject("query").putObject("bool").putArray("filter");
      filter.add(range);
      ObjectNode run = filter.addObject().putObject("bool");
      run.putArray("should").add(term(RunContext.RUN_FIELD, runId)).add(term(RunContext.RUN_FIELD + ".keyword", runId));
      run.put("minimum_should_match", 1);
    }
    ObjectNode buckets = body.putObject("aggs").putObject("buckets");
    EsRequests.dateHistogram(buckets, from, q.bucketMillis(), 1);
    ObjectNode terms = buckets.putObject("aggs").putObject("values").putObject("terms");
    terms.put("field", field);
    terms.put("size", q.values().size() + EXTRA_TERMS);
    terms.put("missing", "");
    return body;
  }

  private static ObjectNode term(String field, String value) {
    ObjectNode term = JSON.createObjectNode();
    term.putObject("term").put(field, value);
    return term;
  }

  @Override
  public KeyedAnswer search(KeyedQuery q) throws IOException {
    KeyedAnswer answer = new KeyedAnswer(q);
    if (q.buckets() == 0 || !refresh()) {
      return answer;
    }
    String field = field(q.key());
    int per = perRequest(q);
    for (int first = 0; first < q.buckets(); first += per) {
      int n = Math.min(per, q.buckets() - first);
      String what =
          "the search by " + q.key() + " over [" + q.bucketStart(first) + ", " + q.bucketStart(first + n) + ")";
      read(post("/" + index + "/_search", JSON.writeValueAsBytes(body(q, first, n, field)), what), q, first, n, what,
          answer);
    }
    return answer;
  }

  /** Adds an answer's histogram buckets and their terms to {@code answer}. */
  void read(JsonNode root, KeyedQuery q, int first, int n, String what, KeyedAnswer answer) throws IOException {
    long total = root.path("hits").path("total").path("value").asLong(-1);
    JsonNode buckets = root.path("aggregations").path("buckets").path("buckets");
    if (total < 0 || !buckets.isArray()) {
      throw new IOException(http.backend() + " answered " + what + " without hits.total and buckets.");
    }
    long sum = 0;
    for (JsonNode bucket : buckets) {
      long key = bucket.path("key").asLong(Long.MIN_VALUE);
      long docs = bucket.path("doc_count").asLong(-1);
      int k = q.bucketStartingAt(key);
      if (k < first || k >= first + n || docs < 0) {
        throw new IOException(http.backend() + " answered a bucket " + key + " that is not one of the buckets of "
            + q.bucketMillis() + " ms asked for in " + what + ".");
      }
      JsonNode values = bucket.path("values");
      if (values.path("sum_other_doc_count").asLong(0) != 0) {
        throw new IOException(http.backend() + " answered " + what + " with more values of " + q.key() + " than the "
            + (q.values().size() + EXTRA_TERMS) + " asked for in the bucket " + key + ".");
      }
      long inTerms = 0;
      for (JsonNode term : values.path("buckets")) {
        long c = term.path("doc_count").asLong(-1);
        if (c < 0) {
          throw new IOException(http.backend() + " answered a term without doc_count in " + what + ".");
        }
        answer.add(k, term.path("key").asText(), c);
        inTerms += c;
      }
      if (inTerms != docs) {
        throw new IOException(http.backend() + " answered terms adding up to " + inTerms + " documents in the bucket "
            + key + " of " + docs + " documents, in " + what + ".");
      }
      sum += docs;
    }
    if (sum != total) {
      throw new IOException(http.backend() + " answered buckets adding up to " + sum + " documents, but " + total
          + " hits, in " + what + ".");
    }
  }

  /** The field to aggregate {@code key} on: the key when aggregatable, else its keyword sub-field. */
  String field(String key) throws IOException {
    String known = fields.get(key);
    if (known != null) {
      return known;
    }
    String what = "the field capabilities of " + key;
    Answer a = http.send(request("/" + index + "/_field_caps?fields="
        + URLEncoder.encode(key + "," + key + ".keyword", StandardCharsets.UTF_8)).GET().build(), what);
    if (a.status() != 200) {
      throw new IOException(http.backend() + " answered " + what + " with " + a.status() + ": " + a.shortText(300));
    }
    JsonNode caps = JSON.readTree(a.body()).path("fields");
    String field = null;
    for (String candidate : new String[] {key, key + ".keyword"}) {
      var types = caps.path(candidate).fields();
      while (field == null && types.hasNext()) {
        if (types.next().getValue().path("aggregatable").asBoolean(false)) {
          field = candidate;
        }
      }
    }
    if (field == null) {
      throw new IOException("The index " + index + " at " + url + " has no aggregatable field " + key + " or " + key
          + ".keyword to count by.");
    }
    fields.put(key, field);
    return field;
  }

  private boolean refresh() throws IOException {
    return requests.refresh();
  }

  private JsonNode post(String path, byte[] body, String what) throws IOException {
    return requests.post(path, body, what);
  }

  private HttpRequest.Builder request(String path) {
    return requests.request(path);
  }

  @Override
  public long requests() {
    return http.stats().requests();
  }

  @Override
  public void close() {
    http.close();
  }
}
