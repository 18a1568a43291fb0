package io.logbench.sink.victorialogs;

import java.net.URI;
import java.util.Map;

import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.http.HttpAnswers;
import io.logbench.sink.http.HttpPushSender;
import io.logbench.sink.victorialogs.internal.JsonLineEncoder;

/**
 * VictoriaLogs' insert over the HTTP skeleton ({@link HttpPushSender}): batches to {@code
 * /insert/jsonline} as JSON lines, and the answer classified: 2xx accepted (VictoriaLogs also
 * answers 200 for rows it drops outside its retention; see {@link VictoriaLogsBackend#warnings}),
 * 429, 5xx, I/O errors and timeouts retryable, other statuses fatal.
 */
final class VictoriaLogsSender {

  private VictoriaLogsSender() {}

  /** A sender of {@code run}'s batches to {@code spec}'s VictoriaLogs. */
  static BatchSender open(VictoriaLogsBackend spec, RunContext run) {
    if (spec.format() == VictoriaLogsBackend.Format.OTLP) {
      return io.logbench.sink.otlp.OtlpPush.open(URI.create(spec.url() + "/insert/opentelemetry/v1/logs"),
          "backend " + spec.name(), spec.requestHeaders(), spec.timeout(), spec.tls(),
          io.logbench.sink.otlp.internal.OtlpLogsEncoder.labels(run.streams()), Map.of(),
          run.runId() == null ? Map.of() : Map.of(RunContext.RUN_FIELD, run.runId()));
    }
    JsonLineEncoder encoder = new JsonLineEncoder(run.streams(), run.runId());
    return HttpPushSender.builder(spec.insertUri(run.streams()), "backend " + spec.name())
        .headers(spec.requestHeaders()).connectTimeout(spec.timeout()).requestTimeout(spec.timeout()).tls(spec.tls())
        .encoder((batch, lines, out) -> {
          encoder.encode(batch, out);
          return "application/stream+json";
        })
        .classifier((batch, lines, status, body) -> classify(batch.count(), status, body))
        .build();
  }

  static SendResult classify(int lines, int status, byte[] body) {
    if (status >= 200 && status < 300) {
      return SendResult.accepted(lines, status);
    }
    return HttpAnswers.byStatus(lines, status, body);
  }
}
