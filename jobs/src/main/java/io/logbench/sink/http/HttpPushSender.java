package io.logbench.sink.http;

import io.logbench.dataset.LineBatch;
import io.logbench.http.HttpTransport;
import io.logbench.http.TlsSettings;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import io.logbench.sink.internal.JsonBytes;
import java.net.URI;
import java.time.Duration;
import java.util.BitSet;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The one skeleton of every HTTP push: a batch's lines encoded into a pooled body by the backend's
 * {@link Encoder}, posted to one endpoint over the backend's {@link HttpTransport} (keep-alive
 * connections, no thread per request), and the answer read by the backend's {@link Reader} on the
 * transport's I/O thread. A backend is only its wire format and its reading of answers: Loki's
 * push, VictoriaLogs' jsonline, Elasticsearch's bulk and Splunk's HEC are each an encoder and a
 * classifier over this class, and so is any new HTTP write kind.
 *
 * <p>A send of some lines of a batch ({@link #send(LineBatch, BitSet)}) encodes only those, for
 * backends whose answers name lines to send again (Elasticsearch's bulk items).
 */
public final class HttpPushSender implements BatchSender {

  /** Puts the lines of a batch set in {@code lines} into {@code out} (cleared first); returns the content type. */
  @FunctionalInterface
  public interface Encoder {
    String encode(LineBatch batch, BitSet lines, JsonBytes out);
  }

  /** Reads a backend's answer to a send of the lines {@code lines} of {@code batch}. */
  @FunctionalInterface
  public interface Classifier {
    SendResult classify(LineBatch batch, BitSet lines, int status, byte[] body);
  }

  /**
   * Completes a send from the backend's answer, at once or later (Splunk's indexer
   * acknowledgement hands the send to its ack poller); runs on the transport's I/O thread.
   */
  @FunctionalInterface
  public interface Reader {
    void read(LineBatch batch, BitSet lines, int status, byte[] body, CompletableFuture<SendResult> result);
  }

  /** A send's result when no answer came (a timeout, a refused or dropped connection). */
  @FunctionalInterface
  public interface Failure {
    SendResult failed(LineBatch batch, BitSet lines, Throwable error);
  }

  private final URI uri;
  private final String name;
  private final HttpTransport transport;
  private final HttpTransport.Endpoint endpoint;
  private final Encoder encoder;
  private final Reader reader;
  private final Failure failure;
  private final Runnable onClose;
  private final BodyPool bodies = new BodyPool(64 * 1024);

  private HttpPushSender(Builder b) {
    this.uri = b.uri;
    this.name = b.name;
    this.encoder = Objects.requireNonNull(b.encoder, "encoder");
    this.reader = Objects.requireNonNull(b.reader, "classifier or reader");
    this.failure = b.failure;
    this.transport = b.transport != null ? b.transport : HttpTransport.open(HttpTransport.Settings.of(b.uri, b.name)
        .connectTimeout(b.connectTimeout).requestTimeout(b.requestTimeout).tls(b.tls));
    this.endpoint = transport.endpoint(b.uri, b.headers);
    this.onClose = b.onClose;
  }

  /** A sender posting to {@code uri}; {@code name} names the backend in the transport's messages. */
  public static Builder builder(URI uri, String name) {
    return new Builder(uri, name);
  }

  /** The transport a sender of these settings would open, for a backend that also polls its server (acks). */
  public static HttpTransport transport(URI uri, String name, Duration connectTimeout, Duration requestTimeout,
      TlsSettings tls) {
    return HttpTransport.open(HttpTransport.Settings.of(uri, name).connectTimeout(connectTimeout)
        .requestTimeout(requestTimeout).tls(tls));
  }

  @Override
  public CompletableFuture<SendResult> send(LineBatch batch) {
    BitSet all = new BitSet(batch.count());
    all.set(0, batch.count());
    return send(batch, all);
  }

  /**
   * Sends only the lines of {@code batch} set in {@code lines}; line indexes in the result are
   * those of {@code batch}.
   */
  public CompletableFuture<SendResult> send(LineBatch batch, BitSet lines) {
    if (lines.isEmpty()) {
      return CompletableFuture.completedFuture(SendResult.accepted(0, 0));
    }
    BitSet sent = (BitSet) lines.clone();
    BodyPool.Body body = bodies.take();
    String contentType = encoder.encode(batch, sent, body.bytes());
    CompletableFuture<SendResult> result = new CompletableFuture<>();
    endpoint.post(contentType, body, new HttpTransport.Answer() {
      @Override
      public void answered(int status, byte[] answer) {
        try {
          reader.read(batch, sent, status, answer, result);
        } catch (RuntimeException e) {
          result.completeExceptionally(e);
        }
      }

      @Override
      public void failed(Throwable error) {
        try {
          result.complete(failure.failed(batch, sent, error));
        } catch (RuntimeException e) {
          result.completeExceptionally(e);
        }
      }
    });
    return result;
  }

  /** The transport this sender posts over. */
  public HttpTransport transport() {
    return transport;
  }

  @Override
  public void close() {
    if (onClose != null) {
      onClose.run();
    }
    transport.close();
  }

  @Override
  public String toString() {
    return "HttpPushSender{" + name + ", " + uri + "}";
  }

  /**
   * Settings of a sender: the endpoint, its fixed headers (tenant, auth), timeouts and TLS, the
   * encoder and the classifier (or reader) are the backend's; failures default to {@link
   * HttpAnswers#failure} (retryable {@code timeout} or {@code io}) for every line sent.
   */
  public static final class Builder {
    private final URI uri;
    private final String name;
    private Map<String, String> headers = Map.of();
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private TlsSettings tls = TlsSettings.DEFAULT;
    private Encoder encoder;
    private Reader reader;
    private Failure failure = (batch, lines, error) -> retryAll(lines, HttpAnswers.failure(lines.cardinality(), error));
    private HttpTransport transport;
    private Runnable onClose;

    private Builder(URI uri, String name) {
      this.uri = Objects.requireNonNull(uri, "uri");
      this.name = Objects.requireNonNull(name, "name");
    }

    public Builder headers(Map<String, String> headers) {
      this.headers = Map.copyOf(headers);
      return this;
    }

    public Builder connectTimeout(Duration d) {
      this.connectTimeout = d;
      return this;
    }

    public Builder requestTimeout(Duration d) {
      this.requestTimeout = d;
      return this;
    }

    public Builder tls(TlsSettings tls) {
      this.tls = tls == null ? TlsSettings.DEFAULT : tls;
      return this;
    }

    public Builder encoder(Encoder encoder) {
      this.encoder = encoder;
      return this;
    }

    /** Reads each answer into a result at once. */
    public Builder classifier(Classifier classifier) {
      Objects.requireNonNull(classifier, "classifier");
      this.reader = (batch, lines, status, body, result) -> result.complete(classifier.classify(batch, lines, status, body));
      return this;
    }

    /** Reads each answer and completes its result, at once or later. */
    public Builder reader(Reader reader) {
      this.reader = reader;
      return this;
    }

    public Builder failure(Failure failure) {
      this.failure = Objects.requireNonNull(failure, "failure");
      return this;
    }

    /** Posts over {@code transport} (opened by the caller, closed by the sender) instead of one of its own. */
    public Builder transport(HttpTransport transport) {
      this.transport = transport;
      return this;
    }

    /** Runs before the transport closes (a backend's poller of the same server). */
    public Builder onClose(Runnable onClose) {
      this.onClose = onClose;
      return this;
    }

    public HttpPushSender build() {
      return new HttpPushSender(this);
    }
  }

  /** {@code result} with its retry set made the lines sent, for a send of part of a batch. */
  static SendResult retryAll(BitSet lines, SendResult result) {
    if (result.kind() != SendResult.Kind.RETRYABLE || result.retry().equals(lines)) {
      return result;
    }
    return new SendResult(result.kind(), result.status(), result.accepted(), result.rejections(), (BitSet) lines.clone(),
        result.detail());
  }
}
