package io.logbench.count.internal;

import io.logbench.count.VisibilityProbe;
import io.logbench.http.HttpTransport;
import io.logbench.http.TlsSettings;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * The HTTP side of a backend's own {@link VisibilityProbe}: form-encoded POSTs to one server on
 * the senders' non-blocking {@link HttpTransport} (its shared I/O threads, a keep-alive
 * connection, no thread or completion stage per request), each answer read on the I/O thread by
 * the probe's parser and handed to the probe's {@link VisibilityProbe.Answer}. Anything but a 2xx
 * answer whose body the parser can read fails the request, with a sentence naming the backend and
 * what was asked.
 */
public final class ProbeRequests implements AutoCloseable {

  /** Reads the counts out of a 2xx answer's body. */
  @FunctionalInterface
  public interface Parser {
    long[] counts(byte[] body) throws IOException;
  }

  private static final String FORM = "application/x-www-form-urlencoded";

  private final String backend;
  private final String base;
  private final Map<String, String> headers;
  private final HttpTransport transport;
  /** One endpoint per path, made at its first request (its request head is built once). */
  private final Map<String, HttpTransport.Endpoint> endpoints = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param backend what the requests go to, for messages (e.g. {@code VictoriaLogs backend 'vl'})
   * @param base the server's base URL (paths are added to it)
   * @param headers sent with every request (tenant, auth: never printed)
   * @param timeout the longest wait for a connection and for an answer
   */
  public ProbeRequests(String backend, URI base, Map<String, String> headers, Duration timeout, TlsSettings tls) {
    this.backend = backend;
    String b = base.toString();
    this.base = b.endsWith("/") ? b.substring(0, b.length() - 1) : b;
    this.headers = Map.copyOf(headers);
    this.transport = HttpTransport.open(new HttpTransport.Settings(URI.create(this.base), backend, timeout, timeout, tls));
  }

  /**
   * POSTs {@code form} (name, value pairs, encoded here) to {@code path}; {@code answer} gets what
   * {@code parser} reads from a 2xx answer, or the failure.
   *
   * @param what what is asked, for messages, e.g. {@code "the visibility count of 3 samples"}
   */
  public void post(String path, Map<String, String> form, String what, Parser parser, VisibilityProbe.Answer answer) {
    StringBuilder body = new StringBuilder();
    form.forEach((k, v) -> body.append(body.length() == 0 ? "" : "&").append(enc(k)).append('=').append(enc(v)));
    HttpTransport.Endpoint endpoint;
    try {
      endpoint = endpoints.computeIfAbsent(path, p -> transport.endpoint(URI.create(base + p), headers));
    } catch (IllegalArgumentException e) {
      answer.failed(e);
      return;
    }
    endpoint.post(FORM, HttpTransport.RequestBody.of(body.toString().getBytes(StandardCharsets.UTF_8)),
        new HttpTransport.Answer() {
          @Override
          public void answered(int status, byte[] bytes) {
            if (status < 200 || status >= 300) {
              String text = new String(bytes, 0, Math.min(bytes.length, 300), StandardCharsets.UTF_8).strip();
              answer.failed(new IOException(backend + " answered " + status + " to " + what
                  + (text.isEmpty() ? "." : ": " + text.replaceAll("\\s+", " ") + ".")));
              return;
            }
            long[] counts;
            try {
              counts = parser.counts(bytes);
            } catch (IOException | RuntimeException e) {
              answer.failed(new IOException(backend + "'s answer to " + what + " cannot be read ("
                  + e.getMessage() + ").", e));
              return;
            }
            answer.counted(counts);
          }

          @Override
          public void failed(Throwable error) {
            answer.failed(new IOException(backend + " did not answer " + what + " (" + error.getMessage() + ").",
                error));
          }
        });
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    transport.close();
  }
}
