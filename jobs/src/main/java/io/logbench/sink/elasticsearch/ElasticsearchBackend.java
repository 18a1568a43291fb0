package io.logbench.sink.elasticsearch;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.StreamCatalog;
import io.logbench.http.BasicAuth;
import io.logbench.http.HttpClients;
import io.logbench.http.HttpUrls;
import io.logbench.http.TlsSettings;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Capabilities;
import io.logbench.sink.CommonSettings;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@code elasticsearch} (or {@code opensearch}) backend block: where to send {@code _bulk}
 * requests, into which index, with which credentials. Keys:
 *
 * <ul>
 *   <li>{@code kind}: {@code elasticsearch} or its alias {@code opensearch}
 *   <li>{@code name}: backend name in reports (default {@code elasticsearch})
 *   <li>{@code url}: base URL, required (e.g. {@code http://127.0.0.1:9200})
 *   <li>{@code index}: target index (default {@value #DEFAULT_INDEX})
 *   <li>{@code user} with {@code password_env} or {@code password_file}: basic authentication
 *   <li>{@code refresh}: {@code none} (default) or {@code wait_for} (each bulk waits until its
 *       documents are searchable: slower, but counts right after an ack are exact)
 *   <li>{@code flush}: {@code true} (default) or {@code false}, and {@code flush_timeout} (default
 *       2m): whether the stored size read after a run first flushes the index and waits for its
 *       merges and store size to settle ({@link EsStoreSettle}), and for how long
 * </ul>
 *
 * The common delivery keys ({@code delivery, in_flight, retry, thresholds, timeout}) are accepted
 * here and read elsewhere.
 *
 * <p>The index is created with an explicit mapping ({@link #ensureIndex}) before the first bulk
 * when it does not exist yet: {@code @timestamp} as {@code date_nanos} (every line keeps its
 * distinct nanosecond), {@code seq} as {@code long} (the drill-down sorts on it) and {@code
 * logbench_run} as {@code keyword} (counts filter on it with a {@code term}); stream labels stay
 * dynamic. An index that exists already only gets {@code logbench_run} added as a keyword.
 * Without this, dynamic mapping would make {@code @timestamp} a {@code date}, cut to
 * milliseconds, which still counts right because windows are whole milliseconds, and {@code
 * logbench_run} a {@code text} field with a {@code .keyword} sub-field, which the reader also
 * filters on.
 *
 * <p>Runs never mix: every document carries the run's id in {@code logbench_run} and its {@code
 * _id} is {@code <run id>-<seq>}, so a second run into the same index stores documents of its own
 * (never answered 409 for the first run's), and counts filter by the run's id.
 *
 * @param kind as written in the run file
 * @param name backend name
 * @param url base URL without a trailing slash
 * @param index target index
 * @param auth basic auth (the password from env or file, never the password itself), or null
 * @param refresh refresh policy of each bulk request
 * @param timeout request timeout of bulk requests
 * @param queryTimeout request timeout of count queries
 * @param tls how to trust an https URL and which client certificate to show (the {@code tls} block;
 *     senders only)
 * @param flushTimeout how long {@link #footprint} waits for the index to settle after the flush it
 *     asks for; zero for no flush ({@code flush: false})
 */
public record ElasticsearchBackend(
    String kind, String name, String url, String index, BasicAuth auth, Refresh refresh, Duration timeout,
    Duration queryTimeout, TlsSettings tls, Duration flushTimeout)
    implements BackendSpec {

  public ElasticsearchBackend {
    tls = tls == null ? TlsSettings.DEFAULT : tls;
    flushTimeout = flushTimeout == null ? DEFAULT_FLUSH_TIMEOUT : flushTimeout;
  }

  /** How long the footprint waits for the index to settle by default ({@code flush_timeout}). */
  public static final Duration DEFAULT_FLUSH_TIMEOUT = Duration.ofMinutes(2);

  /** A backend whose footprint flushes and waits up to {@link #DEFAULT_FLUSH_TIMEOUT}. */
  public ElasticsearchBackend(String kind, String name, String url, String index, BasicAuth auth, Refresh refresh,
      Duration timeout, Duration queryTimeout, TlsSettings tls) {
    this(kind, name, url, index, auth, refresh, timeout, queryTimeout, tls, DEFAULT_FLUSH_TIMEOUT);
  }

  /** A backend that trusts the JDK's CAs over https. */
  public ElasticsearchBackend(String kind, String name, String url, String index, BasicAuth auth, Refresh refresh,
      Duration timeout, Duration queryTimeout) {
    this(kind, name, url, index, auth, refresh, timeout, queryTimeout, TlsSettings.DEFAULT);
  }

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(ElasticsearchBackend.class);

  /** The mapping {@link #ensureIndex} creates an index with. */
  public static final String INDEX_MAPPING =
      "{\"mappings\":{\"properties\":{\"@timestamp\":{\"type\":\"date_nanos\"},"
          + "\"seq\":{\"type\":\"long\"},\"message\":{\"type\":\"text\"},"
          + "\"" + RunContext.RUN_FIELD + "\":{\"type\":\"keyword\"}}}}";

  /**
   * The mapping {@link #ensureIndex} adds to an index that exists already: the run field as a
   * keyword (an index made before run ids has no such field yet, and a new field may be added).
   */
  public static final String RUN_FIELD_MAPPING =
      "{\"properties\":{\"" + RunContext.RUN_FIELD + "\":{\"type\":\"keyword\"}}}";

  private static final Duration ENSURE_TIMEOUT = Duration.ofSeconds(60);

  public static final String DEFAULT_NAME = "elasticsearch";

  public static final BackendType TYPE = new BackendType(List.of("elasticsearch", "opensearch"), DEFAULT_NAME,
      List.of("url", "index", "user", "password_env", "password_file", "refresh", "tls",
          "flush", "flush_timeout"), ElasticsearchBackend::parse);
  public static final String DEFAULT_INDEX = "logbench";

  /** What a bulk request asks about visibility before it answers. */
  public enum Refresh {
    /** Answer as soon as the documents are stored (searchable after the next refresh). */
    NONE,
    /** Answer once the documents are searchable ({@code ?refresh=wait_for}). */
    WAIT_FOR
  }

  /** Reads the keys of an elasticsearch/opensearch backend block. */
  static ElasticsearchBackend parse(ConfigNode block, CommonSettings common) {
    String url = HttpUrls.baseUrl(block, "url", "http://127.0.0.1:9200");
    String index = block.string("index", DEFAULT_INDEX);
    // Index names: lowercase, no spaces or the characters the _bulk path and action would break on.
    if (!index.matches("[a-z0-9][a-z0-9._+-]*") || index.length() > 255) {
      throw block.invalid("index", index, "a lowercase index name (letters, digits, '.', '_', '-', '+')");
    }
    BasicAuth auth = BasicAuth.parse(block);
    Refresh refresh =
        "wait_for".equals(block.choice("refresh", "none", "none", "wait_for")) ? Refresh.WAIT_FOR : Refresh.NONE;
    Duration flushTimeout = io.logbench.sink.Footprint.flushTimeout(block, DEFAULT_FLUSH_TIMEOUT);
    return new ElasticsearchBackend(common.kind(), common.name(), url, index, auth, refresh, common.timeout(),
        common.queryTimeout(), TlsSettings.parse(block), flushTimeout);
  }

  /** Counts back, the run's documents only; ids are the documents' {@code seq} fields. */
  /** Each bulk document carries the line as its {@code message} string. */
  @Override
  public boolean jsonStringLines() {
    return true;
  }

  @Override
  public Capabilities capabilities() {
    return Capabilities.countable(Capabilities.LineIds.SEQUENCE).withRunFilter(true);
  }

  /** Lines of other runs already in the run's time range (a warning, never a failure). */
  @Override
  public List<String> preflight(Preflight before) {
    return before.otherRuns(this);
  }

  @Override
  public BatchSender open(RunContext run) {
    String authorization = authorization();
    try (HttpClients http = new HttpClients(
        "elasticsearch-ensure-index", ElasticsearchSender.DEFAULT_CONNECT_TIMEOUT, tls, "backend " + name)) {
      ensureIndex(http.client(), url, index, authorization, ENSURE_TIMEOUT);
    } catch (IOException e) {
      // Not fatal: the first bulk then creates the index with dynamic mapping (millisecond dates).
      LOG.warn("The index {} at {} could not be created with its mapping: {}", index, url, e.getMessage());
    }
    ElasticsearchSender.Builder b =
        ElasticsearchSender.builder().url(url).index(index).streams(run.streams()).runId(run.runId())
            .name("backend " + name).tls(tls).refresh(refresh).requestTimeout(timeout);
    if (authorization != null) {
      b.authorization(authorization);
    }
    return b.build();
  }

  /** Opens a reader that counts the run's documents back per window. */
  @Override
  public ElasticsearchCountReader openCounter(RunContext run) {
    return reader(run, true);
  }

  /**
   * A reader that never asks for a refresh: the polls see documents when the index's own refresh
   * ({@code index.refresh_interval}, 1 s by default) makes them searchable, as a user's search
   * would.
   */
  @Override
  public ElasticsearchCountReader openProbeReader(RunContext run) {
    return reader(run, false);
  }

  /**
   * The index's store size, every shard copy ({@code GET <index>/_stats/store}): the whole index,
   * every run in it. First the index is flushed and the figure read once no merge runs and it has
   * settled ({@link EsStoreSettle}); with {@code flush: false}, or when it has not settled within
   * {@code flush_timeout}, the figure is read as it stands and marked partial, saying how many
   * merges still ran.
   */
  @Override
  public java.util.Optional<io.logbench.sink.Footprint> footprint(RunContext run) throws IOException {
    try (ElasticsearchCountReader r = reader(run, false)) {
      EsStoreSettle.Outcome o = r.settledStore(flushTimeout);
      String caveat = null;
      if (flushTimeout.isZero()) {
        caveat = "flush: false, so merges under way and a store size cached by the node (up to "
            + EsStoreSettle.STATS_CACHE_SETTING + ", 10s by default) count as they stand; "
            + o.mergesRunning() + " merges were running";
      } else if (!o.done()) {
        caveat = "the index had not settled " + io.logbench.config.Durations.format(flushTimeout)
            + " after its flush (flush_timeout): " + o.mergesRunning() + " merges were running";
      }
      return java.util.Optional.of(new io.logbench.sink.Footprint(o.total(), kind + " index " + index
          + ": store size of every shard copy (_stats/store; primaries " + o.primaries() + " bytes), the whole index"
          + (caveat == null ? (flushTimeout.isZero() ? "" : ", read after a flush once merges ended and the size settled")
              : "; " + caveat), caveat == null));
    }
  }

  private ElasticsearchCountReader reader(RunContext run, boolean refresh) {
    ElasticsearchCountReader.Builder b = ElasticsearchCountReader.builder().url(url).index(index)
        .runId(run.runId()).requestTimeout(queryTimeout).refresh(refresh).tls(tls);
    String authorization = authorization();
    if (authorization != null) {
      b.authorization(authorization);
    }
    return b.build();
  }

  /** Counts behind a pipeline's write by the run and sequence ids the agent parsed ({@link ElasticsearchSeqCounter}). */
  @Override
  public io.logbench.count.SeqCounter openSeqCounter(RunContext run) {
    return new ElasticsearchSeqCounter(this, run.runId(), authorization());
  }

  @Override
  public String seqCountUnavailable() {
    return null;
  }

  /** Searches with a terms aggregation inside a date histogram, the run's documents only. */
  @Override
  public ElasticsearchSearch openSearch(RunContext run) {
    return new ElasticsearchSearch(url, index, run.runId(), authorization(), queryTimeout,
        ElasticsearchSearch.DEFAULT_MAX_BUCKETS, tls);
  }

  /** The basic-auth header value, or null without a user (a secret: never logged). */
  private String authorization() {
    return auth == null ? null : auth.header(name);
  }

  /**
   * Creates {@code index} with {@link #INDEX_MAPPING} unless it exists already; an existing index
   * gets {@link #RUN_FIELD_MAPPING} added (a no-op when it has the field as a keyword already).
   *
   * @param authorization the {@code Authorization} header value, or null
   * @return whether the index was created by this call
   * @throws IOException when the server does not answer, answers anything but "created" or
   *     "already exists", or refuses the run field's mapping (the index has it as another type)
   */
  public static boolean ensureIndex(
      HttpClient client, String url, String index, String authorization, Duration timeout) throws IOException {
    HttpResponse<String> r = send(client, request(url + "/" + index, INDEX_MAPPING, authorization, timeout), index);
    if (r.statusCode() == 200) {
      return true;
    }
    if (r.statusCode() == 400 && r.body().contains("resource_already_exists_exception")) {
      HttpResponse<String> m = send(client, request(url + "/" + index + "/_mapping", RUN_FIELD_MAPPING,
          authorization, timeout), index);
      if (m.statusCode() != 200) {
        throw new IOException("Adding the keyword field " + RunContext.RUN_FIELD + " to the index " + index
            + " at " + url + " was answered " + m.statusCode() + ": " + excerpt(m.body())
            + "; counts filter runs on it (or on its .keyword sub-field, which dynamic mapping makes).");
      }
      return false;
    }
    throw new IOException(
        "Creating the index " + index + " at " + url + " was answered " + r.statusCode() + ": " + excerpt(r.body()));
  }

  private static HttpRequest request(String uri, String body, String authorization, Duration timeout) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(uri))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return request.build();
  }

  private static HttpResponse<String> send(HttpClient client, HttpRequest request, String index)
      throws IOException {
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while creating the index " + index + ".", e);
    }
  }

  private static String excerpt(String body) {
    return body.length() > 300 ? body.substring(0, 300) + "..." : body;
  }
}
