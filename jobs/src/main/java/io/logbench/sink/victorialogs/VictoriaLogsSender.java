package io.logbench.sink.victorialogs;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.RunContext;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import io.logbench.sink.http.HttpAnswers;
import io.logbench.sink.victorialogs.internal.JsonLineEncoder;
import io.logbench.http.HttpTransport;
import io.logbench.sink.http.BodyPool;
import io.logbench.sink.http.FutureAnswer;
import java.net.URI;
import java.util.concurrent.CompletableFuture;

/**
 * Pushes batches to VictoriaLogs' {@code /insert/jsonline} over the backend's {@link HttpTransport} and
 * classifies the answer: 2xx accepted (VictoriaLogs also answers 200 for rows it drops outside
 * its retention; see {@link VictoriaLogsBackend#warnings}), 429, 5xx, I/O errors and timeouts
 * retryable, other statuses fatal.
 */
public final class VictoriaLogsSender implements BatchSender {

  private final HttpTransport transport;
  private final HttpTransport.Endpoint insert;
  private final JsonLineEncoder encoder;
  private final BodyPool bodies = new BodyPool(64 * 1024);

  VictoriaLogsSender(VictoriaLogsBackend spec, RunContext run) {
    URI uri = spec.insertUri(run.streams());
    this.encoder = new JsonLineEncoder(run.streams(), run.runId());
    this.transport = HttpTransport.open(HttpTransport.Settings.of(uri, "backend " + spec.name())
        .connectTimeout(spec.timeout()).requestTimeout(spec.timeout()).tls(spec.tls()));
    this.insert = transport.endpoint(uri, spec.requestHeaders());
  }

  @Override
  public CompletableFuture<SendResult> send(LineBatch batch) {
    int lines = batch.count();
    if (lines == 0) {
      return CompletableFuture.completedFuture(SendResult.accepted(0, 0));
    }
    BodyPool.Body body = bodies.take();
    encoder.encode(batch, body.bytes());
    FutureAnswer answer = new FutureAnswer(lines, (status, bytes) -> classify(lines, status, bytes));
    insert.post("application/stream+json", body, answer);
    return answer.future();
  }

  static SendResult classify(int lines, int status, byte[] body) {
    if (status >= 200 && status < 300) {
      return SendResult.accepted(lines, status);
    }
    return HttpAnswers.byStatus(lines, status, body);
  }

  @Override
  public void close() {
    transport.close();
  }
}
