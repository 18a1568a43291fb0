package io.logbench.sink.loki;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.RunContext;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.http.HttpAnswers;
import io.logbench.sink.loki.internal.LokiJsonEncoder;
import io.logbench.sink.loki.internal.LokiProtoEncoder;
import io.logbench.sink.loki.internal.LokiPushErrors;
import java.io.IOException;
import java.io.UncheckedIOException;
import io.logbench.http.HttpTransport;
import io.logbench.sink.http.BodyPool;
import io.logbench.sink.http.FutureAnswer;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.xerial.snappy.Snappy;

/**
 * Pushes batches to Loki's {@code /loki/api/v1/push} over the backend's {@link HttpTransport}, as JSON
 * or as snappy-compressed protobuf, each entry with the run's id as structured metadata or each
 * stream with it as a label ({@link LokiBackend#runId}), and classifies the answer: 2xx
 * accepted; 400 naming rejected entries (too old, too far behind, too long) partial, since Loki
 * stores the other entries of the push; a 400 refusing structured metadata fatal, with the reason
 * {@code 400 structured metadata disallowed}; other 4xx fatal; 429, 5xx, I/O errors and timeouts
 * retryable.
 */
public final class LokiSender implements BatchSender {

  /** What Loki answers (400) to structured metadata it does not allow. */
  static final String STRUCTURED_METADATA_DISALLOWED = "includes structured metadata, but this feature is disallowed";

  private final HttpTransport transport;
  private final HttpTransport.Endpoint push;
  private final LokiJsonEncoder json;
  private final LokiProtoEncoder proto;
  /** The protobuf before compression; only the delivery thread uses it. */
  private final JsonBytes raw = new JsonBytes(64 * 1024);
  private final BodyPool bodies = new BodyPool(64 * 1024);

  LokiSender(LokiBackend spec, RunContext run) {
    List<Map<String, String>> labels = spec.streamLabels(run);
    String metadata = spec.runMetadata(run);
    this.json = spec.format() == LokiBackend.Format.JSON ? new LokiJsonEncoder(labels, metadata) : null;
    this.proto = spec.format() == LokiBackend.Format.PROTOBUF ? new LokiProtoEncoder(labels, metadata) : null;
    URI uri = spec.pushUri();
    this.transport = HttpTransport.open(HttpTransport.Settings.of(uri, "backend " + spec.name())
        .connectTimeout(spec.timeout()).requestTimeout(spec.timeout()).tls(spec.tls()));
    this.push = transport.endpoint(uri, spec.requestHeaders());
  }

  @Override
  public CompletableFuture<SendResult> send(LineBatch batch) {
    int lines = batch.count();
    if (lines == 0) {
      return CompletableFuture.completedFuture(SendResult.accepted(0, 0));
    }
    BodyPool.Body body = bodies.take();
    String contentType;
    if (json != null) {
      json.encode(batch, body.bytes());
      contentType = "application/json";
    } else {
      proto.encode(batch, raw);
      compress(raw, body.bytes());
      // Loki reads a raw snappy block for protobuf, so no Content-Encoding header.
      contentType = "application/x-protobuf";
    }
    FutureAnswer answer = new FutureAnswer(lines, (status, bytes) -> classify(batch, status, bytes));
    push.post(contentType, body, answer);
    return answer.future();
  }

  /** Snappy-compresses {@code raw} into {@code out} (cleared first) as one raw block. */
  private static void compress(JsonBytes raw, JsonBytes out) {
    try {
      out.clear();
      byte[] dst = out.reserve(Snappy.maxCompressedLength(raw.size()));
      out.size(Snappy.rawCompress(raw.array(), 0, raw.size(), dst, 0));
    } catch (IOException e) {
      throw new UncheckedIOException("Snappy could not compress a Loki push body.", e);
    }
  }

  /** The class of Loki's answer {@code status} with {@code body} to a push of {@code batch}. */
  static SendResult classify(LineBatch batch, int status, byte[] body) {
    int lines = batch.count();
    if (status >= 200 && status < 300) {
      return SendResult.accepted(lines, status);
    }
    if (status == 400) {
      String text = HttpAnswers.text(body);
      if (text.contains(STRUCTURED_METADATA_DISALLOWED)) {
        // the body names a stream: the reason must not, so every batch counts under one reason
        return SendResult.fatal(lines, status, "400 structured metadata disallowed",
            "Loki refuses the run id as structured metadata (limits_config.allow_structured_metadata"
                + " is false, or the schema is older than v13): allow it, or set run_id: label or none. "
                + SendResult.bounded(text));
      }
      SendResult partial = LokiPushErrors.classify(batch, text);
      if (partial != null) {
        return partial;
      }
    }
    return HttpAnswers.byStatus(lines, status, body);
  }

  @Override
  public void close() {
    transport.close();
  }
}
