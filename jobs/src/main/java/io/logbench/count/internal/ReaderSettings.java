package io.logbench.count.internal;

import io.logbench.http.TlsSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings every HTTP count reader's builder shares (the server's URL, the index it reads,
 * the run it counts, how many buckets one request may ask, the timeouts, TLS), with one check of
 * them: each backend's builder extends it with its own keys and its defaults.
 *
 * @param <B> the backend's builder, returned by each setter
 */
public abstract class ReaderSettings<B extends ReaderSettings<B>> {

  protected String url;
  protected String index;
  protected String runId;
  protected int maxBuckets;
  protected Duration requestTimeout;
  protected Duration connectTimeout;
  protected TlsSettings tls = TlsSettings.DEFAULT;

  protected ReaderSettings(String index, int maxBuckets, Duration requestTimeout, Duration connectTimeout) {
    this.index = index;
    this.maxBuckets = maxBuckets;
    this.requestTimeout = requestTimeout;
    this.connectTimeout = connectTimeout;
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /** The server's base URL, e.g. {@code http://127.0.0.1:9200} (a trailing slash is dropped). */
  public B url(String url) {
    this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    return self();
  }

  public B index(String index) {
    this.index = index;
    return self();
  }

  /** Counts only the lines of the run {@code runId} (its field {@code logbench_run}); null (default) counts all. */
  public B runId(String runId) {
    this.runId = runId;
    return self();
  }

  /** Most buckets one request may ask for. */
  public B maxBuckets(int maxBuckets) {
    this.maxBuckets = maxBuckets;
    return self();
  }

  public B requestTimeout(Duration requestTimeout) {
    this.requestTimeout = requestTimeout;
    return self();
  }

  public B connectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
    return self();
  }

  /** How https servers are trusted: the backend's {@code tls} block (default: the JDK's CAs). */
  public B tls(TlsSettings tls) {
    this.tls = tls;
    return self();
  }

  public String url() {
    return url;
  }

  public String index() {
    return index;
  }

  public String runId() {
    return runId;
  }

  public int maxBuckets() {
    return maxBuckets;
  }

  public Duration requestTimeout() {
    return requestTimeout;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public TlsSettings tls() {
    return tls;
  }

  /**
   * Checks the shared settings: a URL, buckets within {@code [1, maxAllowed]} (named {@code
   * limit} in the message), positive timeouts; {@code reader} names the reader in messages.
   */
  protected void check(String reader, int maxAllowed, String limit) {
    Objects.requireNonNull(url, "The url of " + reader + " is required.");
    if (maxBuckets < 1 || maxBuckets > maxAllowed) {
      throw new IllegalArgumentException("The buckets per request must be between 1 and " + maxAllowed
          + (limit == null ? "" : " (" + limit + ")") + ", got " + maxBuckets + ".");
    }
    if (requestTimeout.isNegative() || requestTimeout.isZero() || connectTimeout.isNegative()
        || connectTimeout.isZero()) {
      throw new IllegalArgumentException("The request and connect timeouts must be positive.");
    }
  }
}
