package io.logbench.http;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The senders' HTTP/1.1 client: POSTs to one server (scheme, host, port) over a pool of keep-alive
 * connections, on a few shared I/O threads, with no thread and no completion stage per request.
 * Each answer, or the failure instead of one, is handed to an {@link Answer} callback on an I/O
 * thread, exactly once.
 *
 * <p>A sender opens one transport per backend and task ({@link #open}) and closes it with itself;
 * headers that never change are prepared once per {@link Endpoint}. Failures are {@link
 * java.io.IOException}s: {@link java.net.http.HttpTimeoutException} when no answer came within the
 * request timeout (or no connection within the connect timeout), any other one for I/O errors
 * (refused, reset, closed, an answer that is not HTTP).
 */
public interface HttpTransport extends AutoCloseable {

  /** A transport to the server of {@code settings.base()}. */
  static HttpTransport open(Settings settings) {
    return new NettyTransport(settings);
  }

  /**
   * A POST target on this transport's server: {@code uri}'s path and query with {@code headers}
   * (besides Host, Content-Length and those the transport sets) on every request.
   *
   * @throws IllegalArgumentException when {@code uri} is on another server than the transport's
   */
  Endpoint endpoint(URI uri, Map<String, String> headers);

  /** Closes every connection; requests still under way fail with an I/O error. */
  @Override
  void close();

  /** A POST target with its headers. */
  interface Endpoint {

    /**
     * Sends {@code body} with {@code contentType}; {@code answer} is called once, on an I/O
     * thread, with the answer or the failure. The body is released once its bytes are copied or
     * written, or the request failed, possibly before this returns; the caller must not change it
     * before.
     */
    void post(String contentType, RequestBody body, Answer answer);
  }

  /** What became of one request; called on an I/O thread, so it must not block. */
  interface Answer {

    /** The server answered {@code status} with {@code body} (empty when it sent none). */
    void answered(int status, byte[] body);

    /** No answer: an {@link java.io.IOException} ({@link java.net.http.HttpTimeoutException} for timeouts). */
    void failed(Throwable error);
  }

  /**
   * A request body: the first {@link #length} bytes of {@link #array}, copied once into the
   * request's buffer, then {@link #release}d so its owner can reuse the array.
   */
  interface RequestBody {

    byte[] array();

    int length();

    /** Called once, on the posting thread or an I/O thread, when the transport no longer needs the bytes. */
    void release();

    /** A body of all of {@code bytes}, with nothing to do on release. */
    static RequestBody of(byte[] bytes) {
      return new RequestBody() {
        @Override
        public byte[] array() {
          return bytes;
        }

        @Override
        public int length() {
          return bytes.length;
        }

        @Override
        public void release() {}
      };
    }
  }

  /**
   * How to reach one server.
   *
   * @param base any URL of the server (http or https; only scheme, host and port are used)
   * @param name what the transport's log lines and errors call it, e.g. the backend's name
   * @param connectTimeout longest wait for a connection (default {@link #DEFAULT_CONNECT_TIMEOUT})
   * @param requestTimeout longest wait for an answer once the request is written (default {@link
   *     #DEFAULT_REQUEST_TIMEOUT})
   * @param tls how to trust the server of an https URL (default: the JDK's trusted CAs); ignored
   *     for http
   */
  record Settings(URI base, String name, Duration connectTimeout, Duration requestTimeout, TlsSettings tls) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    public Settings {
      Objects.requireNonNull(base, "base");
      Objects.requireNonNull(name, "name");
      if (!"http".equals(base.getScheme()) && !"https".equals(base.getScheme()) || base.getHost() == null) {
        throw new IllegalArgumentException("The URL " + base + " of " + name + " is not an http or https URL with a host.");
      }
      positive(connectTimeout, "connect timeout", name);
      positive(requestTimeout, "request timeout", name);
      tls = tls == null ? TlsSettings.DEFAULT : tls;
    }

    /** Settings with the defaults for the server of {@code base}. */
    public static Settings of(URI base, String name) {
      return new Settings(base, name, DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, TlsSettings.DEFAULT);
    }

    public Settings connectTimeout(Duration d) {
      return new Settings(base, name, d, requestTimeout, tls);
    }

    public Settings requestTimeout(Duration d) {
      return new Settings(base, name, connectTimeout, d, tls);
    }

    public Settings tls(TlsSettings t) {
      return new Settings(base, name, connectTimeout, requestTimeout, t);
    }

    private static void positive(Duration d, String what, String name) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("The " + what + " of " + name + " must be positive, not " + d + ".");
      }
    }
  }
}
