package io.logbench.sink.victorialogs;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.RunContext;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.http.HttpAnswers;
import io.logbench.sink.victorialogs.internal.JsonLineEncoder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * Pushes batches to VictoriaLogs' {@code /insert/jsonline} with one asynchronous HTTP client and
 * classifies the answer: 2xx accepted (VictoriaLogs also answers 200 for rows it drops outside
 * its retention; see {@link VictoriaLogsBackend#warnings}), 429, 5xx, I/O errors and timeouts
 * retryable, other statuses fatal.
 */
public final class VictoriaLogsSender implements BatchSender {

  private final VictoriaLogsBackend spec;
  private final URI insert;
  private final HttpClient client;
  private final java.util.Map<String, String> headers;
  private final JsonLineEncoder encoder;
  private final JsonBytes body = new JsonBytes(64 * 1024);

  VictoriaLogsSender(VictoriaLogsBackend spec, RunContext run) {
    this.spec = spec;
    this.insert = spec.insertUri(run.streams());
    this.encoder = new JsonLineEncoder(run.streams(), run.runId());
    this.headers = spec.requestHeaders();
    this.client = HttpClient.newBuilder().connectTimeout(spec.timeout()).build();
  }

  @Override
  public CompletableFuture<SendResult> send(LineBatch batch) {
    int lines = batch.count();
    if (lines == 0) {
      return CompletableFuture.completedFuture(SendResult.accepted(0, 0));
    }
    encoder.encode(batch, body);
    HttpRequest.Builder b =
        HttpRequest.newBuilder(insert)
            .timeout(spec.timeout())
            .header("Content-Type", "application/stream+json");
    headers.forEach(b::header);
    HttpRequest request =
        b.POST(HttpRequest.BodyPublishers.ofByteArray(Arrays.copyOf(body.array(), body.size())))
            .build();
    return client
        .sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .handle(
            (response, error) ->
                error != null
                    ? HttpAnswers.failure(lines, error)
                    : classify(lines, response.statusCode(), response.body()));
  }

  static SendResult classify(int lines, int status, byte[] body) {
    if (status >= 200 && status < 300) {
      return SendResult.accepted(lines, status);
    }
    return HttpAnswers.byStatus(lines, status, body);
  }

  @Override
  public void close() {
    // java.net.http.HttpClient has no close() before Java 21; its threads end when unreferenced.
  }
}
