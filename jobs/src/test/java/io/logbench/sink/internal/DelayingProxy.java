package io.logbench.sink.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A loopback HTTP proxy in front of a real server that holds every request for a while before
 * forwarding it: a slow answer from a real backend (OpenSearch), for deadline tests. Headers other
 * than the hop-by-hop ones are forwarded both ways; bodies unchanged.
 */
public final class DelayingProxy implements AutoCloseable {

  /** Headers the JDK client sets itself or refuses. */
  private static final Set<String> RESTRICTED =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding", "keep-alive");

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final HttpClient client = HttpClient.newBuilder().executor(executor).build();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final String target;
  private volatile Duration delay;

  /** A proxy to {@code target} (e.g. {@code http://127.0.0.1:9200}) holding each request {@code delay}. */
  public DelayingProxy(String target, Duration delay) throws IOException {
    this.target = target.endsWith("/") ? target.substring(0, target.length() - 1) : target;
    this.delay = delay;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Holds each later request {@code delay} before forwarding it. */
  public DelayingProxy delay(Duration delay) {
    this.delay = delay;
    return this;
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] body = ex.getRequestBody().readAllBytes();
      if (closed.await(delay.toNanos(), TimeUnit.NANOSECONDS)) {
        return;
      }
      HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(target + ex.getRequestURI()))
          .method(ex.getRequestMethod(),
              body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
      ex.getRequestHeaders().forEach((name, values) -> {
        if (!RESTRICTED.contains(name.toLowerCase())) {
          values.forEach(v -> forward.header(name, v));
        }
      });
      HttpResponse<byte[]> answer = client.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
      answer.headers().map().forEach((name, values) -> {
        if (!RESTRICTED.contains(name.toLowerCase()) && !name.startsWith(":")) {
          ex.getResponseHeaders().put(name, List.copyOf(values));
        }
      });
      byte[] out = answer.body();
      ex.sendResponseHeaders(answer.statusCode(), out.length == 0 ? -1 : out.length);
      if (out.length > 0) {
        ex.getResponseBody().write(out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
