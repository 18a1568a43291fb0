package io.logbench.sink.splunk;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchSender;
import io.logbench.sink.internal.HttpUrls;
import io.logbench.sink.internal.SecretRef;
import java.time.Duration;

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
 * @param searchUser user of the count searches, or null
 * @param searchPassword where that user's password is, or null (never the password itself)
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
    String searchUser,
    SecretRef searchPassword)
    implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "splunk";
  public static final String DEFAULT_NAME = "splunk";
  public static final String DEFAULT_SOURCETYPE = "logbench";
  public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_ACK_POLL = Duration.ofSeconds(1);

  /** Reads and checks a splunk backend block. */
  public static SplunkBackend parse(ConfigNode block) {
    block.allowOnly(
        "kind", "name", "url", "token_env", "token_file", "index", "source", "sourcetype", "host",
        "ack", "ack_timeout", "ack_poll", "search_url", "search_user", "search_password_env",
        "search_password_file", "delivery", "in_flight", "retry", "thresholds", "timeout");
    block.choice("kind", null, KIND);
    String name = block.string("name", DEFAULT_NAME);
    if (!name.matches("[A-Za-z0-9._-]+")) {
      throw block.invalid("name", name, "letters, digits, '.', '_' or '-'");
    }
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
    String searchUser = block.string("search_user", null);
    SecretRef searchPassword =
        SecretRef.parse(block, "search_password_env", "search_password_file", false, "the search password");
    if (searchUser == null && searchPassword != null) {
      throw new ConfigException(
          block.path() + ": search_password_env/search_password_file needs search_user as well.");
    }
    if (searchUser != null && searchPassword == null) {
      throw new ConfigException(
          block.path() + ": search_user needs a password; set search_password_env or search_password_file.");
    }
    return new SplunkBackend(
        name, url, token, index, source, sourcetype, host, ack, ackTimeout, ackPoll, searchUrl, searchUser,
        searchPassword);
  }

  /** {@code url} with Splunk's management port, 8089. */
  static String managementUrl(String url) {
    java.net.URI u = java.net.URI.create(url);
    return u.getScheme() + "://" + (u.getHost().contains(":") ? "[" + u.getHost() + "]" : u.getHost()) + ":8089";
  }

  /**
   * Opens a reader that counts this backend's index back with {@code tstats} searches on {@code
   * search_url}; the index is {@code index}, or {@code main} when unset (HEC's default).
   *
   * @throws IllegalStateException when no search credentials are configured
   */
  @Override
  public SplunkCountReader openCounter(StreamCatalog streams) {
    if (searchUser == null) {
      throw new IllegalStateException(
          "The splunk backend " + name + " needs search_user and search_password_env or"
              + " search_password_file to count its events back.");
    }
    return SplunkCountReader.builder()
        .url(searchUrl)
        .index(index == null ? SplunkCountReader.DEFAULT_INDEX : index)
        .credentials(searchUser, searchPassword.resolve())
        .build();
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public BatchSender open(StreamCatalog streams) {
    return SplunkSender.builder()
        .url(url)
        .token(token.resolve())
        .streams(streams)
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
