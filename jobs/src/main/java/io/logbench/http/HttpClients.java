package io.logbench.http;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 client on its own daemon threads, so a sender can release them on close (Java 17's
 * HttpClient has no shutdown of its own).
 */
public final class HttpClients implements AutoCloseable {

  private final ExecutorService executor;
  private final HttpClient client;

  public HttpClients(String threadPrefix, Duration connectTimeout) {
    AtomicInteger n = new AtomicInteger();
    this.executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, threadPrefix + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(connectTimeout)
            .executor(executor)
            .build();
  }

  public HttpClient client() {
    return client;
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
