package io.logbench.sink.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loopback HTTP server that answers each request with the next canned answer (or hangs), and
 * records what it was sent: the fake behind sender unit tests.
 */
public final class CannedHttpServer implements AutoCloseable {

  /** A recorded request. */
  public record Request(String method, String uri, Map<String, List<String>> headers, byte[] body) {
    public String header(String name) {
      for (Map.Entry<String, List<String>> e : headers.entrySet()) {
        if (e.getKey().equalsIgnoreCase(name)) {
          return e.getValue().get(0);
        }
      }
      return null;
    }

    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** An answer; {@code hang} never answers (until the server closes). */
  public record Canned(int status, String body, boolean hang) {
    public static Canned of(int status, String body) {
      return new Canned(status, body, false);
    }

    public static Canned hanging() {
      return new Canned(0, "", true);
    }
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final ConcurrentLinkedQueue<Canned> answers = new ConcurrentLinkedQueue<>();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final CountDownLatch closed = new CountDownLatch(1);

  public CannedHttpServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public CannedHttpServer answer(int status, String body) {
    answers.add(Canned.of(status, body));
    return this;
  }

  public CannedHttpServer hang() {
    answers.add(Canned.hanging());
    return this;
  }

  public List<Request> requests() {
    return requests;
  }

  private void handle(HttpExchange ex) throws IOException {
    byte[] body = ex.getRequestBody().readAllBytes();
    requests.add(new Request(ex.getRequestMethod(), ex.getRequestURI().toString(), Map.copyOf(ex.getRequestHeaders()), body));
    Canned c = answers.poll();
    if (c == null) {
      c = Canned.of(500, "{\"error\":\"no canned answer left\"}");
    }
    if (c.hang()) {
      try {
        closed.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      ex.close();
      return;
    }
    byte[] out = c.body().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(c.status(), out.length == 0 ? -1 : out.length);
    if (out.length > 0) {
      ex.getResponseBody().write(out);
    }
    ex.close();
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
