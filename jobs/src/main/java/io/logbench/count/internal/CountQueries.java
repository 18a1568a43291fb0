package io.logbench.count.internal;

import io.logbench.count.CountReader.QueryStats;
import io.logbench.http.HttpClients;
import io.logbench.http.TlsSettings;
import io.logbench.sink.http.HttpAnswers;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The blocking HTTP side of every count reader: one request at a time with a deadline and fixed
 * headers (tenant, auth), every failure to answer turned into an {@link IOException} whose message
 * names the backend and the request (never a credential), and the requests and their time tallied
 * for {@link QueryStats}. Readers that judge the status themselves use {@link #send}; readers for
 * which anything outside 2xx is a failure use {@link #get}.
 */
public final class CountQueries implements AutoCloseable {

  /** An answer: status and body. */
  public record Answer(int status, byte[] body) {
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    /** The body cut to {@code max} characters, for messages. */
    public String shortText(int max) {
      String t = text().replaceAll("\\s+", " ").strip();
      return t.length() <= max ? t : t.substring(0, max) + "...";
    }
  }

  private final String backend;
  private final Duration requestTimeout;
  private final Map<String, String> headers;
  private final HttpClients http;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong nanos = new AtomicLong();

  /**
   * @param backend what the requests go to, for messages (e.g. {@code OpenSearch at http://...})
   */
  public CountQueries(String backend, String threadPrefix, Duration connectTimeout, Duration requestTimeout) {
    this(backend, threadPrefix, connectTimeout, requestTimeout, Map.of());
  }

  /**
   * @param backend what the requests go to, for messages (e.g. {@code Loki backend 'loki'})
   * @param headers headers sent with every request (values may be secrets: never printed)
   */
  public CountQueries(
      String backend, String threadPrefix, Duration connectTimeout, Duration requestTimeout,
      Map<String, String> headers) {
    this(backend, threadPrefix, connectTimeout, requestTimeout, headers, TlsSettings.DEFAULT);
  }

  /**
   * @param backend what the requests go to, for messages (e.g. {@code Loki backend 'loki'})
   * @param headers headers sent with every request (values may be secrets: never printed)
   * @param tls the backend's {@code tls} block, so reads trust the same servers as its sender
   */
  public CountQueries(
      String backend, String threadPrefix, Duration connectTimeout, Duration requestTimeout,
      Map<String, String> headers, TlsSettings tls) {
    this.backend = backend;
    this.requestTimeout = requestTimeout;
    this.headers = new LinkedHashMap<>(headers);
    this.http = new HttpClients(threadPrefix, connectTimeout, tls, backend);
  }

  /** A request builder for {@code uri} with this reader's timeout and fixed headers. */
  public HttpRequest.Builder request(URI uri) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(requestTimeout);
    headers.forEach(b::header);
    return b;
  }

  /**
   * The body of a 2xx answer to {@code GET uri}.
   *
   * @param what what is asked, for messages, e.g. {@code the count query over [a, b)}
   * @throws IOException when there is no 2xx answer within the timeout
   */
  public byte[] get(URI uri, String what) throws IOException {
    Answer a = send(request(uri).GET().build(), what);
    if (a.status() < 200 || a.status() >= 300) {
      String text = HttpAnswers.shortText(HttpAnswers.text(a.body()));
      throw new IOException(
          backend + " answered " + a.status() + " to " + what + (text.isEmpty() ? "." : ": " + text + "."));
    }
    return a.body();
  }

  /** The failure to read an answer to {@code what}, for parse errors. */
  public IOException unreadable(String what, String problem, Throwable cause) {
    return new IOException(backend + "'s answer to " + what + " cannot be read (" + problem + ").", cause);
  }

  /**
   * Sends {@code request} and waits for its answer.
   *
   * @param what what the request does, for messages (e.g. {@code "the count search"})
   * @throws IOException when there is no answer in time or the connection fails
   */
  public Answer send(HttpRequest request, String what) throws IOException {
    long t0 = System.nanoTime();
    try {
      HttpResponse<byte[]> r = http.client().send(request, HttpResponse.BodyHandlers.ofByteArray());
      return new Answer(r.statusCode(), r.body());
    } catch (HttpTimeoutException e) {
      throw new IOException(
          backend + " did not answer " + what + " within " + requestTimeout.toMillis() + " ms.", e);
    } catch (ConnectException e) {
      throw new IOException(backend + " could not be reached for " + what + " (connection refused or failed).", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while waiting for " + backend + " to answer " + what + ".");
    } catch (IOException e) {
      throw new IOException(
          backend + " failed to answer " + what + " (" + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ").", e);
    } finally {
      requests.incrementAndGet();
      nanos.addAndGet(System.nanoTime() - t0);
    }
  }

  public String backend() {
    return backend;
  }

  public QueryStats stats() {
    return new QueryStats(requests.get(), nanos.get());
  }

  @Override
  public void close() {
    http.close();
  }
}
