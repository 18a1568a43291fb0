package io.logbench.sink.elasticsearch;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.http.TlsSettings;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import io.logbench.sink.elasticsearch.ElasticsearchBackend.Refresh;
import io.logbench.sink.elasticsearch.internal.BulkClassifier;
import io.logbench.sink.elasticsearch.internal.BulkEncoder;
import java.io.IOException;
import java.net.URI;
import io.logbench.sink.http.HttpPushSender;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Sends batches to Elasticsearch or OpenSearch as {@code _bulk} requests of {@code create}
 * actions with {@code <run id>-<seq>} as {@code _id} (the seq alone without a run id), so a line
 * resent within the run is answered 409 and never stored twice, and each document carries the run
 * id in {@code logbench_run}. Answers are classified per item by {@link BulkClassifier}.
 *
 * <p>Defaults: {@link #DEFAULT_REQUEST_TIMEOUT} per request, {@link #DEFAULT_CONNECT_TIMEOUT} to
 * connect.
 */
public final class ElasticsearchSender implements BatchSender {

  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final URI bulkUri;
  private final boolean basicAuth;
  private final HttpPushSender push;

  private ElasticsearchSender(Builder b) {
    String query = b.refresh == Refresh.WAIT_FOR ? "?refresh=wait_for" : "";
    this.bulkUri = URI.create(b.url + "/_bulk" + query);
    this.basicAuth = b.authorization != null;
    BulkEncoder encoder = new BulkEncoder(b.index, b.streams, b.runId);
    this.push = HttpPushSender.builder(bulkUri, b.name)
        .headers(b.authorization == null ? Map.of() : Map.of("Authorization", b.authorization))
        .connectTimeout(DEFAULT_CONNECT_TIMEOUT).requestTimeout(b.requestTimeout).tls(b.tls)
        .encoder((batch, lines, out) -> {
          encoder.encode(batch, lines, out);
          return "application/x-ndjson";
        })
        .classifier((batch, lines, status, body) -> BulkClassifier.classify(status, body, lines, batch.count()))
        .failure((batch, lines, error) -> failed(error, lines))
        .build();
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public CompletableFuture<SendResult> send(LineBatch batch) {
    return push.send(batch);
  }

  /**
   * Sends only the lines of {@code batch} set in {@code lines} (e.g. the retry set of an earlier
   * answer); line indexes in the result are those of {@code batch}.
   */
  public CompletableFuture<SendResult> send(LineBatch batch, BitSet lines) {
    return push.send(batch, lines);
  }

  private static SendResult failed(Throwable error, BitSet sent) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    String detail;
    if (cause instanceof HttpTimeoutException) {
      detail = "timeout: no answer to the bulk request in time";
    } else if (cause instanceof IOException) {
      detail = "io: " + cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    } else {
      // A bug, not a backend answer: let the caller see it.
      throw new CompletionException(cause);
    }
    return new SendResult(SendResult.Kind.RETRYABLE, 0, 0, List.of(), (BitSet) sent.clone(), SendResult.bounded(detail));
  }

  @Override
  public void close() {
    push.close();
  }

  @Override
  public String toString() {
    return "ElasticsearchSender{" + bulkUri + (basicAuth ? ", basic auth" : "") + "}";
  }

  /** Settings of a sender; {@code url}, {@code streams} are required. */
  public static final class Builder {
    private String url;
    private String index = ElasticsearchBackend.DEFAULT_INDEX;
    private StreamCatalog streams;
    private String runId;
    private Refresh refresh = Refresh.NONE;
    private String authorization;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private TlsSettings tls = TlsSettings.DEFAULT;
    private String name = "Elasticsearch";

    private Builder() {}

    /** Base URL, e.g. {@code http://127.0.0.1:9200}. */
    public Builder url(String url) {
      this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
      return this;
    }

    public Builder index(String index) {
      this.index = index;
      return this;
    }

    public Builder streams(StreamCatalog streams) {
      this.streams = streams;
      return this;
    }

    /**
     * The run's id, stamped on every document ({@code logbench_run}) and prefixed to its {@code
     * _id}; null (the default) for neither.
     */
    public Builder runId(String runId) {
      this.runId = runId;
      return this;
    }

    public Builder refresh(Refresh refresh) {
      this.refresh = refresh;
      return this;
    }

    /** The full {@code Authorization} header value (a secret: never logged or shown). */
    public Builder authorization(String authorization) {
      this.authorization = authorization;
      return this;
    }

    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
      return this;
    }

    /** How to trust an https URL (default: the JDK's CAs). */
    public Builder tls(TlsSettings tls) {
      this.tls = tls;
      return this;
    }

    /** What errors and log lines call the backend (default {@code Elasticsearch}). */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    public ElasticsearchSender build() {
      Objects.requireNonNull(url, "The url of an Elasticsearch sender is required.");
      Objects.requireNonNull(streams, "The stream catalog of an Elasticsearch sender is required.");
      if (requestTimeout.isNegative() || requestTimeout.isZero()) {
        throw new IllegalArgumentException("The request timeout must be positive, got " + requestTimeout + ".");
      }
      return new ElasticsearchSender(this);
    }
  }
}
