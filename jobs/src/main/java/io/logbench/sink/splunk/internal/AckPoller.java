package io.logbench.sink.splunk.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.logbench.sink.SendResult;
import io.logbench.http.HttpTransport;
import java.net.URI;
import java.nio.charset.StandardCharsets;
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

  private final HttpTransport.Endpoint ack;
  private final Duration timeout;
  private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
  private final AtomicBoolean polling = new AtomicBoolean();
  private final ScheduledExecutorService timer;
  private volatile String lastPollProblem = "";

  /**
   * Polls {@code /services/collector/ack} of {@code baseUrl} over {@code transport} (whose request
   * timeout bounds each poll) for {@code channel}'s ack ids, every {@code poll}, each id for at
   * most {@code timeout}.
   */
  public AckPoller(
      HttpTransport transport, String baseUrl, String authorization, String channel, Duration timeout,
      Duration poll) {
    this.ack = transport.endpoint(URI.create(baseUrl + "/services/collector/ack?channel=" + channel),
        Map.of("Authorization", authorization, "X-Splunk-Request-Channel", channel));
    this.timeout = timeout;
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
    await(ackId, lines, f);
    return f;
  }

  /** Completes {@code into} when {@code ackId} (covering {@code lines} lines) is acknowledged or times out. */
  public void await(long ackId, int lines, CompletableFuture<SendResult> into) {
    pending.put(ackId, new Pending(into, lines, System.nanoTime() + timeout.toNanos()));
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
    ack.post("application/json", HttpTransport.RequestBody.of(body.toString().getBytes(StandardCharsets.US_ASCII)),
        new HttpTransport.Answer() {
          @Override
          public void answered(int status, byte[] answer) {
            try {
              AckPoller.this.answered(status, answer);
            } finally {
              polling.set(false);
            }
          }

          @Override
          public void failed(Throwable error) {
            lastPollProblem = error.getClass().getSimpleName();
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
