package io.logbench.sink.splunk;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.config.SecretRef;
import io.logbench.dataset.StreamCatalog;
import io.logbench.http.BasicAuth;
import io.logbench.http.HttpUrls;
import io.logbench.http.TlsSettings;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Capabilities;
import io.logbench.sink.CommonSettings;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import java.time.Duration;
import java.util.List;

/**
 * A {@code splunk} backend block: a Splunk HTTP Event Collector, its token and the metadata of
 * the events. Keys:
 *
 * <ul>
 *   <li>{@code kind}: {@code splunk}
 *   <li>{@code name}: backend name in reports (default {@code splunk})
 *   <li>{@code url}: HEC base URL, required (e.g. {@code https://splunk:8088})
 *   <li>{@code token_env} or {@code token_file}: where the HEC token is, required
 *   <li>{@code index}, {@code source}, {@code host}: event metadata (omitted when unset, so the
 *       token's defaults apply)
 *   <li>{@code sourcetype}: default {@value #DEFAULT_SOURCETYPE}
 *   <li>{@code ack}: indexer acknowledgement ({@code true}/{@code false}, default false)
 *   <li>{@code ack_timeout}: how long to wait for an ack (default 60s), {@code ack_poll}: how
 *       often to ask (default 1s)
 *   <li>{@code search_url}: the search head's management (REST) URL used to count events back
 *       (default: {@code url} with port 8089)
 *   <li>{@code search_user} with {@code search_password_env} or {@code search_password_file}: the
 *       basic-auth credentials of the count searches (needed only to count back)
 * </ul>
 *
 * The common delivery keys ({@code delivery, in_flight, retry, thresholds, timeout}) are accepted
 * here and read elsewhere.
 *
 * @param token where the token is (never the token itself)
 * @param searchUrl management URL of the count searches
 * @param searchAuth user of the count searches and where its password is (never the password
 *     itself), or null
 * @param timeout request timeout of HEC requests (the answer only; the ack wait has ackTimeout)
 * @param queryTimeout request timeout of count searches
 * @param tls how to trust an https URL and which client certificate to show (the {@code tls} block;
 *     senders only)
 */
public record SplunkBackend(
    String name,
    String url,
    SecretRef token,
    String index,
    String source,
    String sourcetype,
    String host,
    boolean ack,
    Duration ackTimeout,
    Duration ackPoll,
    String searchUrl,
    BasicAuth searchAuth,
    Duration timeout,
    Duration queryTimeout,
    TlsSettings tls)
    implements BackendSpec {

  public SplunkBackend {
    tls = tls == null ? TlsSettings.DEFAULT : tls;
  }

  /** A backend that trusts the JDK's CAs over https. */
  public SplunkBackend(String name, String url, SecretRef token, String index, String source, String sourcetype,
      String host, boolean ack, Duration ackTimeout, Duration ackPoll, String searchUrl, BasicAuth searchAuth,
      Duration timeout, Duration queryTimeout) {
    this(name, url, token, index, source, sourcetype, host, ack, ackTimeout, ackPoll, searchUrl, searchAuth, timeout,
        queryTimeout, TlsSettings.DEFAULT);
  }

  private static final long serialVersionUID = 1L;

  public static final String KIND = "splunk";
  public static final String DEFAULT_NAME = "splunk";
  public static final String DEFAULT_SOURCETYPE = "logbench";
  public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_ACK_POLL = Duration.ofSeconds(1);

  public static final BackendType TYPE = BackendType.of(KIND, List.of("url", "token_env", "token_file", "index",
      "source", "sourcetype", "host", "ack", "ack_timeout", "ack_poll", "search_url", "search_user",
      "search_password_env", "search_password_file", "tls"), SplunkBackend::parse);

  /** Reads the keys of a splunk backend block. */
  static SplunkBackend parse(ConfigNode block, CommonSettings common) {
    String url = HttpUrls.baseUrl(block, "url", "https://127.0.0.1:8088");
    SecretRef token = SecretRef.parse(block, "token_env", "token_file", true, "the HEC token");
    String index = block.string("index", null);
    String source = block.string("source", null);
    String sourcetype = block.string("sourcetype", DEFAULT_SOURCETYPE);
    String host = block.string("host", null);
    boolean ack = "true".equals(block.choice("ack", "false", "true", "false"));
    Duration ackTimeout = block.duration("ack_timeout", DEFAULT_ACK_TIMEOUT, false);
    Duration ackPoll = block.duration("ack_poll", DEFAULT_ACK_POLL, false);
    if (ackPoll.compareTo(ackTimeout) > 0) {
      throw new ConfigException(
          block.path() + ": ack_poll (" + block.string("ack_poll", null) + ") must not be longer than ack_timeout.");
    }
    String searchUrl =
        block.string("search_url", null) == null
            ? managementUrl(url)
            : HttpUrls.baseUrl(block, "search_url", "https://127.0.0.1:8089");
    BasicAuth searchAuth = BasicAuth.parse(block, "search_user", "search_password_env", "search_password_file");
    return new SplunkBackend(common.name(), url, token, index, source, sourcetype, host, ack, ackTimeout, ackPoll,
        searchUrl, searchAuth, common.timeout(), common.queryTimeout(), TlsSettings.parse(block));
  }

  /** {@code url} with Splunk's management port, 8089. */
  static String managementUrl(String url) {
    java.net.URI u = java.net.URI.create(url);
    return u.getScheme() + "://" + (u.getHost().contains(":") ? "[" + u.getHost() + "]" : u.getHost()) + ":8089";
  }

  /** Without search credentials nothing can be counted. */
  @Override
  public String countUnavailable() {
    return searchAuth == null
        ? "the splunk backend has no search_user and search_password_env or search_password_file to count with"
        : null;
  }

  /**
   * Opens a reader that counts the run's events in this backend's index with {@code tstats}
   * searches on {@code search_url}; the index is {@code index}, or {@code main} when unset (HEC's
   * default).
   *
   * @throws IllegalStateException when no search credentials are configured
   */
  @Override
  public SplunkCountReader openCounter(RunContext run) {
    if (searchAuth == null) {
      throw new IllegalStateException(
          "The splunk backend " + name + " needs search_user and search_password_env or"
              + " search_password_file to count its events back.");
    }
    return SplunkCountReader.builder()
        .url(searchUrl)
        .index(index == null ? SplunkCountReader.DEFAULT_INDEX : index)
        .runId(run.runId())
        .credentials(searchAuth.user(), searchAuth.password().resolve())
        .requestTimeout(queryTimeout)
        .tls(tls)
        .build();
  }

  /** Searches with {@code | tstats count ... by _time, <key>}, the run's events only. */
  @Override
  public SplunkSearch openSearch(RunContext run) {
    return new SplunkSearch(openCounter(run));
  }

  @Override
  public String kind() {
    return KIND;
  }

  /** Counts back with tstats, the run's events only; ids are the events' {@code seq} fields. */
  /** Each HEC event carries the line as its {@code event} string. */
  @Override
  public boolean jsonStringLines() {
    return true;
  }

  @Override
  public Capabilities capabilities() {
    return Capabilities.countable(Capabilities.LineIds.SEQUENCE).withRunFilter(true);
  }

  /**
   * Events of other runs already in the run's time range (a warning, never a failure); only with
   * search credentials, without which nothing can be counted.
   */
  @Override
  public List<String> preflight(Preflight before) {
    return searchAuth == null ? List.of() : before.otherRuns(this);
  }

  /**
   * Without ack, one request. With ack, the request ({@code timeout}, the answer only), then the
   * wait for the ack id, which the sender ends itself after {@code ack_timeout} as a retryable
   * {@code ack timeout}; its poller looks at deadlines once per {@code ack_poll}, so that answer
   * comes at most one poll late, and one more poll of margin keeps the delivery's timeout from
   * ever resending a batch whose ack is still awaited.
   */
  @Override
  public Duration answerTimeout(Duration requestTimeout) {
    return ack ? requestTimeout.plus(ackTimeout).plus(ackPoll.multipliedBy(2)) : requestTimeout;
  }

  @Override
  public BatchSender open(RunContext run) {
    return SplunkSender.builder()
        .url(url)
        .token(token.resolve())
        .streams(run.streams())
        .runId(run.runId())
        .requestTimeout(timeout)
        .name("backend " + name)
        .tls(tls)
        .index(index)
        .source(source)
        .sourcetype(sourcetype)
        .host(host)
        .ack(ack)
        .ackTimeout(ackTimeout)
        .ackPoll(ackPoll)
        .build();
  }
}
