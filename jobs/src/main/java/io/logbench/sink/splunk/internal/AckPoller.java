package io.logbench.sink.splunk.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.logbench.sink.SendResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Waits for HEC indexer acknowledgements of one channel: every poll interval it asks {@code
 * /services/collector/ack} about all pending ack ids in one request, completes those answered
 * true as accepted, and those still pending after the ack timeout as retryable ("ack timeout").
 * Deadlines are looked at once per poll, so an expired id is answered at most one poll interval
 * after its deadline, never before it.
 */
public final class AckPoller implements AutoCloseable {

  private record Pending(CompletableFuture<SendResult> future, int lines, long deadlineNanos) {}

  private final HttpClient client;
  private final URI ackUri;
  private final String authorization;
  private final String channel;
  private final Duration timeout;
  private final Duration requestTimeout;
  private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
  private final AtomicBoolean polling = new AtomicBoolean();
  private final ScheduledExecutorService timer;
  private volatile String lastPollProblem = "";

  public AckPoller(
      HttpClient client, String baseUrl, String authorization, String channel, Duration timeout,
      Duration poll, Duration requestTimeout) {
    this.client = client;
    this.ackUri = URI.create(baseUrl + "/services/collector/ack?channel=" + channel);
    this.authorization = authorization;
    this.channel = channel;
    this.timeout = timeout;
    this.requestTimeout = requestTimeout;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "hec-ack-poller");
              t.setDaemon(true);
              return t;
            });
    long every = poll.toNanos();
    timer.scheduleWithFixedDelay(this::tick, every, every, TimeUnit.NANOSECONDS);
  }

  /** A future completed when {@code ackId} (covering {@code lines} lines) is acknowledged or times out. */
  public CompletableFuture<SendResult> await(long ackId, int lines) {
    CompletableFuture<SendResult> f = new CompletableFuture<>();
    pending.put(ackId, new Pending(f, lines, System.nanoTime() + timeout.toNanos()));
    return f;
  }

  /** Ack ids still waiting. */
  public int pendingCount() {
    return pending.size();
  }

  private void tick() {
    expire();
    if (pending.isEmpty() || !polling.compareAndSet(false, true)) {
      return;
    }
    StringBuilder body = new StringBuilder("{\"acks\":[");
    for (Long id : pending.keySet()) {
      body.append(id).append(',');
    }
    body.setCharAt(body.length() - 1, ']');
    body.append('}');
    HttpRequest request =
        HttpRequest.newBuilder(ackUri)
            .timeout(requestTimeout)
            .header("Authorization", authorization)
            .header("X-Splunk-Request-Channel", channel)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    client
        .sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .whenComplete(
            (response, error) -> {
              try {
                if (error != null) {
                  lastPollProblem = error.getClass().getSimpleName();
                } else {
                  answered(response.statusCode(), response.body());
                }
              } finally {
                polling.set(false);
              }
            });
  }

  private void answered(int status, byte[] body) {
    if (status != 200) {
      lastPollProblem = HecAnswer.reason(status, HecAnswer.parse(body));
      return;
    }
    JsonNode acks;
    try {
      acks = HecAnswer.JSON.readTree(body).path("acks");
    } catch (Exception e) {
      lastPollProblem = "unreadable ack answer";
      return;
    }
    Iterator<Map.Entry<String, JsonNode>> it = acks.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue().asBoolean(false)) {
        long id;
        try {
          id = Long.parseLong(e.getKey());
        } catch (NumberFormatException ignored) {
          continue;
        }
        Pending p = pending.remove(id);
        if (p != null) {
          p.future().complete(SendResult.accepted(p.lines(), 200));
        }
      }
    }
    lastPollProblem = "";
  }

  private void expire() {
    long now = System.nanoTime();
    for (Map.Entry<Long, Pending> e : pending.entrySet()) {
      Pending p = e.getValue();
      if (now - p.deadlineNanos() >= 0 && pending.remove(e.getKey(), p)) {
        String problem = lastPollProblem;
        p.future().complete(
            SendResult.retryable(
                p.lines(), 200,
                SendResult.ACK_TIMEOUT + ": ackId " + e.getKey() + " was not acknowledged within " + io.logbench.config.Durations.format(timeout)
                    + (problem.isEmpty() ? "" : " (last ack poll: " + problem + ")")));
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    for (Map.Entry<Long, Pending> e : pending.entrySet()) {
      if (pending.remove(e.getKey(), e.getValue())) {
        e.getValue().future().complete(
            SendResult.retryable(e.getValue().lines(), 200,
                SendResult.ACK_TIMEOUT + ": the sender closed before ackId " + e.getKey() + " was acknowledged"));
      }
    }
  }
}
