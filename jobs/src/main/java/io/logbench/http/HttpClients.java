package io.logbench.http;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 client on its own daemon threads, so a sender can release them on close (Java 17's
 * HttpClient has no shutdown of its own), trusting https servers as a backend's {@code tls} block
 * says (the same {@link TlsSettings} as its sender's {@link HttpTransport}).
 */
public final class HttpClients implements AutoCloseable {

  private final ExecutorService executor;
  private final HttpClient client;

  public HttpClients(String threadPrefix, Duration connectTimeout) {
    this(threadPrefix, connectTimeout, TlsSettings.DEFAULT, threadPrefix);
  }

  /**
   * @param tls how to trust https servers and which client certificate to show
   * @param name what the client talks to, for TLS messages (e.g. {@code backend loki})
   */
  public HttpClients(String threadPrefix, Duration connectTimeout, TlsSettings tls, String name) {
    AtomicInteger n = new AtomicInteger();
    this.executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, threadPrefix + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    HttpClient.Builder b =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(connectTimeout)
            .executor(executor);
    if (!tls.isDefault()) {
      b.sslContext(Tls.jdkContext(tls, name));
    }
    this.client = b.build();
  }

  public HttpClient client() {
    return client;
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
