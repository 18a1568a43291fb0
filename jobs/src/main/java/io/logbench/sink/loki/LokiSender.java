package io.logbench.sink.loki;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.http.HttpAnswers;
import io.logbench.sink.http.HttpPushSender;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.loki.internal.LokiJsonEncoder;
import io.logbench.sink.loki.internal.LokiProtoEncoder;
import io.logbench.sink.loki.internal.LokiPushErrors;
import io.logbench.sink.otlp.OtlpPush;
import io.logbench.sink.otlp.internal.OtlpLogsEncoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.xerial.snappy.Snappy;

/**
 * Loki's push over the HTTP skeleton ({@link HttpPushSender}): batches to {@code
 * /loki/api/v1/push} as JSON or as snappy-compressed protobuf (or, with {@code format: otlp}, to
 * {@code /otlp/v1/logs} through {@link OtlpPush}), each entry with the run's id as
 * structured metadata or each stream with it as a label ({@link LokiBackend#runId}), and the
 * answer classified: 2xx accepted; 400 naming rejected entries (too old, too far behind, too
 * long) partial, since Loki stores the other entries of the push; a 400 refusing structured
 * metadata fatal, with the reason {@code 400 structured metadata disallowed}; other 4xx fatal;
 * 429, 5xx, I/O errors and timeouts retryable.
 */
final class LokiSender {

  /** What Loki answers (400) to structured metadata it does not allow. */
  static final String STRUCTURED_METADATA_DISALLOWED = "includes structured metadata, but this feature is disallowed";

  private final LokiJsonEncoder json;
  private final LokiProtoEncoder proto;
  /** The protobuf before compression; only the delivery thread uses it. */
  private final JsonBytes raw = new JsonBytes(64 * 1024);

  private LokiSender(LokiBackend spec, RunContext run) {
    List<Map<String, String>> labels = spec.streamLabels(run);
    String metadata = spec.runMetadata(run);
    this.json = spec.format() == LokiBackend.Format.JSON ? new LokiJsonEncoder(labels, metadata) : null;
    this.proto = spec.format() == LokiBackend.Format.PROTOBUF ? new LokiProtoEncoder(labels, metadata) : null;
  }

  /** A sender of {@code run}'s batches to {@code spec}'s Loki. */
  static BatchSender open(LokiBackend spec, RunContext run) {
    if (spec.format() == LokiBackend.Format.OTLP) {
      Map<String, String> attributes = new java.util.LinkedHashMap<>();
      String metadata = spec.runMetadata(run);
      if (metadata != null) {
        attributes.put(RunContext.RUN_FIELD, metadata);
      }
      Map<String, String> resource = new java.util.LinkedHashMap<>(spec.labels());
      resource.remove("service_name");
      resource.put("service.name", spec.otlpService());
      return OtlpPush.open(spec.pushUri(), "backend " + spec.name(), spec.requestHeaders(), spec.timeout(), spec.tls(),
          OtlpLogsEncoder.labels(run.streams()), resource, attributes);
    }
    LokiSender encoders = new LokiSender(spec, run);
    return HttpPushSender.builder(spec.pushUri(), "backend " + spec.name()).headers(spec.requestHeaders())
        .connectTimeout(spec.timeout()).requestTimeout(spec.timeout()).tls(spec.tls())
        .encoder(encoders::encode)
        .classifier((batch, lines, status, body) -> classify(batch, status, body))
        .build();
  }

  /** Encodes the whole of {@code batch} (Loki's answers never name lines to send again). */
  private String encode(LineBatch batch, BitSet lines, JsonBytes out) {
    if (json != null) {
      json.encode(batch, out);
      return "application/json";
    }
    proto.encode(batch, raw);
    compress(raw, out);
    // Loki reads a raw snappy block for protobuf, so no Content-Encoding header.
    return "application/x-protobuf";
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
}
