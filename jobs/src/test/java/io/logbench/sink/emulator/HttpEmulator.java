package io.logbench.sink.emulator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The HTTP plumbing of a protocol emulator: a JDK HttpServer on 127.0.0.1 at a free port, a
 * thread per request (so a hanging request never blocks another), injected faults, and helpers to
 * read requests and write answers.
 */
public abstract class HttpEmulator implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final CountDownLatch stopped = new CountDownLatch(1);
  protected final HttpFaults faults = new HttpFaults();

  protected HttpEmulator() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    } catch (IOException e) {
      throw new UncheckedIOException("The emulator could not bind 127.0.0.1.", e);
    }
    server.setExecutor(executor);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            handle(exchange);
          } catch (RuntimeException e) {
            respond(exchange, 500, "text/plain", ("emulator error: " + e).getBytes(StandardCharsets.UTF_8));
          }
        });
    server.start();
  }

  /** Handles one request (the exchange is closed afterwards). */
  protected abstract void handle(HttpExchange exchange) throws IOException;

  public HttpFaults faults() {
    return faults;
  }

  /** {@code http://127.0.0.1:<port>}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /**
   * Applies the next injected fault: returns null when the request was answered (or dropped) by
   * the fault, else the fault to apply after handling (LOSE) or a no-op marker.
   */
  protected HttpFaults.Fault applyFault(HttpExchange ex) throws IOException {
    return applyFault(ex, faults);
  }

  /** As {@link #applyFault(HttpExchange)}, with the faults of {@code from} (e.g. query faults). */
  protected HttpFaults.Fault applyFault(HttpExchange ex, HttpFaults from) throws IOException {
    HttpFaults.Fault f = from.take();
    if (f == null) {
      return NONE;
    }
    switch (f.kind()) {
      case FAIL -> {
        respond(ex, f.status(), "text/plain; charset=utf-8", f.body().getBytes(StandardCharsets.UTF_8));
        return null;
      }
      case GARBAGE -> {
        respond(ex, f.status(), "application/json", HttpFaults.garbage());
        return null;
      }
      case HANG -> {
        awaitStop();
        return null;
      }
      case RESET -> {
        // Closing an exchange before its headers are sent closes the connection.
        return null;
      }
      case DELAY -> {
        try {
          Thread.sleep(f.delay().toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return NONE;
      }
      default -> {
        return f;
      }
    }
  }

  /** Marker for "no fault": handle normally. */
  protected static final HttpFaults.Fault NONE =
      new HttpFaults.Fault(HttpFaults.Kind.DELAY, 0, "", java.time.Duration.ZERO, 0);

  private void awaitStop() {
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  protected static byte[] body(HttpExchange ex) throws IOException {
    try (InputStream in = ex.getRequestBody()) {
      return in.readAllBytes();
    }
  }

  protected static void respond(HttpExchange ex, int status, String contentType, byte[] body)
      throws IOException {
    if (contentType != null) {
      ex.getResponseHeaders().set("Content-Type", contentType);
    }
    if (body.length == 0) {
      ex.sendResponseHeaders(status, -1);
      return;
    }
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  protected static void respondText(HttpExchange ex, int status, String text) throws IOException {
    respond(ex, status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
  }

  /** Query parameters of a request URI, and of a form-encoded body when given. */
  protected static Map<String, String> params(URI uri, String formBody) {
    Map<String, String> out = new LinkedHashMap<>();
    parseInto(uri.getRawQuery(), out);
    parseInto(formBody, out);
    return out;
  }

  private static void parseInto(String raw, Map<String, String> out) {
    if (raw == null || raw.isEmpty()) {
      return;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(
          URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
  }

  @Override
  public void close() {
    stopped.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
