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
 * </ul>
 *
 * The common delivery keys ({@code delivery, in_flight, retry, thresholds, timeout}) are accepted
 * here and read elsewhere.
 *
 * @param token where the token is (never the token itself)
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
    Duration ackPoll)
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
        "ack", "ack_timeout", "ack_poll",
        "delivery", "in_flight", "retry", "thresholds", "timeout");
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
    return new SplunkBackend(name, url, token, index, source, sourcetype, host, ack, ackTimeout, ackPoll);
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
