package io.logbench.sink.splunk;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.http.HttpTransport;
import io.logbench.http.TlsSettings;
import io.logbench.sink.http.HttpPushSender;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import io.logbench.sink.splunk.internal.AckPoller;
import io.logbench.sink.splunk.internal.HecAnswer;
import io.logbench.sink.splunk.internal.HecEncoder;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Sends batches to a Splunk HTTP Event Collector ({@code /services/collector/event}), one JSON
 * event per line. With {@code ack} on, it sends a channel id, and a batch counts as accepted only
 * once HEC acknowledges its ack id as indexed.
 *
 * <p>HEC has no idempotency key: a batch retried after an unknown outcome (a timeout, a lost
 * answer, an ack timeout) may be indexed twice, which the verifier reports as duplication.
 * Answers: 200 code 0 accepted; 429, 503 (server busy, queues full) and other 5xx retryable; 401
 * (token required, invalid authorization), 403 (invalid or disabled token) and 400 (no data,
 * invalid data format, incorrect index, ...) fatal with reason {@code "<status> <text>"}; a 200
 * that does not say Success is retryable.
 */
public final class SplunkSender implements BatchSender {

  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final URI eventUri;
  private final String channel;
  private final HttpPushSender push;
  private final AckPoller acks;

  private SplunkSender(Builder b) {
    this.eventUri = URI.create(b.url + "/services/collector/event");
    String authorization = "Splunk " + b.token;
    this.channel = b.ack ? b.channel : null;
    HecEncoder encoder = new HecEncoder(b.streams, b.host, b.source, b.sourcetype, b.index, b.runId);
    // the ack poller asks the same server over the same connections
    HttpTransport transport = HttpPushSender.transport(eventUri, b.name, DEFAULT_CONNECT_TIMEOUT, b.requestTimeout,
        b.tls);
    this.acks = b.ack ? new AckPoller(transport, b.url, authorization, channel, b.ackTimeout, b.ackPoll) : null;
    this.push = HttpPushSender.builder(eventUri, b.name).transport(transport)
        .headers(channel == null
            ? Map.of("Authorization", authorization)
            : Map.of("Authorization", authorization, "X-Splunk-Request-Channel", channel))
        .encoder((batch, lines, out) -> {
          encoder.encode(batch, out);
          return "application/json";
        })
        .reader((batch, lines, status, body, result) -> answered(status, body, batch.count(), result))
        .failure((batch, lines, error) -> failed(error, batch.count()))
        .onClose(acks == null ? null : acks::close)
        .build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The request channel (a UUID) when acknowledgement is on, else null. */
  public String channel() {
    return channel;
  }

  @Override
  public CompletableFuture<SendResult> send(LineBatch batch) {
    return push.send(batch);
  }

  /** Completes {@code result} from HEC's answer, or hands it to the ack poller. */
  private void answered(int status, byte[] body, int lines, CompletableFuture<SendResult> result) {
    HecAnswer answer = HecAnswer.parse(body);
    String code = answer == null || answer.code() < 0 ? "" : " (code " + answer.code() + ")";
    if (status == 200) {
      if (answer == null || answer.code() != 0) {
        // A 200 that does not say Success tells nothing about what was indexed.
        result.complete(SendResult.retryable(lines, status, "The HEC answer does not say Success: " + HecAnswer.excerpt(body)));
      } else if (acks == null) {
        result.complete(SendResult.accepted(lines, status));
      } else if (answer.ackId() < 0) {
        result.complete(new SendResult(SendResult.Kind.ACCEPTED, status, lines, List.of(), new BitSet(),
            "HEC answered Success without an ackId: indexer acknowledgement is not enabled on the token"));
      } else {
        acks.await(answer.ackId(), lines, result);
      }
      return;
    }
    if (status == 429 || status >= 500) {
      result.complete(SendResult.retryable(lines, status, HecAnswer.reason(status, answer) + code));
      return;
    }
    String reason = HecAnswer.reason(status, answer);
    result.complete(SendResult.fatal(lines, status, reason, "HEC refused the events: " + reason + code));
  }

  private static SendResult failed(Throwable error, int lines) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (cause instanceof HttpTimeoutException) {
      return SendResult.retryable(lines, 0, "timeout: no answer from HEC in time");
    }
    return SendResult.retryable(
        lines, 0,
        "io: " + cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage()));
  }

  @Override
  public void close() {
    push.close();
  }

  @Override
  public String toString() {
    return "SplunkSender{" + eventUri + (channel == null ? "" : ", channel " + channel) + "}";
  }

  /** Settings of a sender; {@code url}, {@code token} and {@code streams} are required. */
  public static final class Builder {
    private String url;
    private String token;
    private StreamCatalog streams;
    private String runId;
    private String index;
    private String source;
    private String sourcetype = SplunkBackend.DEFAULT_SOURCETYPE;
    private String host;
    private boolean ack;
    private Duration ackTimeout = SplunkBackend.DEFAULT_ACK_TIMEOUT;
    private Duration ackPoll = SplunkBackend.DEFAULT_ACK_POLL;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private String channel = UUID.randomUUID().toString();
    private TlsSettings tls = TlsSettings.DEFAULT;
    private String name = "Splunk HEC";

    private Builder() {}

    public Builder url(String url) {
      this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
      return this;
    }

    /** The HEC token (a secret: never logged or shown). */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    public Builder streams(StreamCatalog streams) {
      this.streams = streams;
      return this;
    }

    /** The run's id, the indexed field {@code logbench_run} of every event; null (default) for none. */
    public Builder runId(String runId) {
      this.runId = runId;
      return this;
    }

    public Builder index(String index) {
      this.index = index;
      return this;
    }

    public Builder source(String source) {
      this.source = source;
      return this;
    }

    public Builder sourcetype(String sourcetype) {
      this.sourcetype = sourcetype;
      return this;
    }

    public Builder host(String host) {
      this.host = host;
      return this;
    }

    public Builder ack(boolean ack) {
      this.ack = ack;
      return this;
    }

    public Builder ackTimeout(Duration ackTimeout) {
      this.ackTimeout = ackTimeout;
      return this;
    }

    public Builder ackPoll(Duration ackPoll) {
      this.ackPoll = ackPoll;
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

    /** What errors and log lines call the backend (default {@code Splunk HEC}). */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** The request channel (default: a random UUID per sender). */
    public Builder channel(String channel) {
      this.channel = channel;
      return this;
    }

    public SplunkSender build() {
      Objects.requireNonNull(url, "The url of a Splunk sender is required.");
      Objects.requireNonNull(streams, "The stream catalog of a Splunk sender is required.");
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException("The HEC token of a Splunk sender is required.");
      }
      if (!positive(ackPoll) || !positive(ackTimeout) || !positive(requestTimeout)) {
        throw new IllegalArgumentException("The ack poll, ack timeout and request timeout must be positive.");
      }
      return new SplunkSender(this);
    }

    private static boolean positive(Duration d) {
      return !d.isNegative() && !d.isZero();
    }
  }
}
