package io.logbench.sink.http;

import io.logbench.count.CountReader.QueryStats;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The blocking HTTP GET that count readers share: fixed headers (tenant, auth), a request timeout,
 * request and time tallies, and every failure (no answer, timeout, a status outside 2xx) turned
 * into an {@link IOException} whose message names the backend, what was asked and the status,
 * never the credentials.
 */
public final class QueryClient {

  private final String backend;
  private final HttpClient client;
  private final Duration timeout;
  private final Map<String, String> headers;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong nanos = new AtomicLong();

  /**
   * @param backend how messages name the backend, e.g. {@code Loki backend 'loki'}
   * @param timeout request (and connect) timeout
   * @param headers headers sent with every request (values may be secrets: never printed)
   */
  public QueryClient(String backend, Duration timeout, Map<String, String> headers) {
    this.backend = backend;
    this.timeout = timeout;
    this.headers = new LinkedHashMap<>(headers);
    this.client = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  /**
   * The body of a 2xx answer to {@code GET uri}.
   *
   * @param what what is asked, for messages, e.g. {@code the count query over [a, b)}
   * @throws IOException when there is no 2xx answer within the timeout
   */
  public byte[] get(URI uri, String what) throws IOException {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout).GET();
    headers.forEach(b::header);
    long start = System.nanoTime();
    HttpResponse<byte[]> response;
    try {
      response = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (HttpTimeoutException e) {
      throw new IOException(
          backend + " did not answer " + what + " within " + timeout.toMillis() + " ms.", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(
          "Interrupted while waiting for " + backend + " to answer " + what + ".");
    } catch (IOException e) {
      throw new IOException(
          backend + " could not be reached for " + what + " (" + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ").", e);
    } finally {
      requests.incrementAndGet();
      nanos.addAndGet(System.nanoTime() - start);
    }
    int status = response.statusCode();
    if (status < 200 || status >= 300) {
      String text = HttpAnswers.shortText(HttpAnswers.text(response.body()));
      throw new IOException(
          backend + " answered " + status + " to " + what
              + (text.isEmpty() ? "." : ": " + text + "."));
    }
    return response.body();
  }

  /** The wrapped failure to read an answer of {@code what}, for parse errors. */
  public IOException unreadable(String what, String problem, Throwable cause) {
    return new IOException(
        backend + "'s answer to " + what + " cannot be read (" + problem + ").", cause);
  }

  public QueryStats stats() {
    return new QueryStats(requests.get(), nanos.get());
  }
}
