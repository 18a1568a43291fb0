package io.logbench.metrics;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.HTTPServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import org.apache.flink.metrics.prometheus.AbstractPrometheusReporter;

/**
 * Flink's Prometheus reporter (the same metric names, labels and exposition as {@code
 * flink-metrics-prometheus}'s {@code PrometheusReporter}), serving {@code /metrics} on a given
 * host and port instead of every address of the machine. Created by {@link
 * LoopbackPrometheusReporterFactory}.
 */
public final class LoopbackPrometheusReporter extends AbstractPrometheusReporter {

  private final HTTPServer server;
  private final InetSocketAddress address;

  LoopbackPrometheusReporter(String host, int port) {
    this.address = new InetSocketAddress(host, port);
    if (address.isUnresolved()) {
      throw new IllegalArgumentException("The Prometheus reporter's host " + host + " is not an address of"
          + " this machine; expected e.g. 127.0.0.1.");
    }
    try {
      // daemon threads: the reporter never keeps a finished command's JVM alive
      this.server = new HTTPServer(address, registry(this), true);
    } catch (IOException e) {
      throw new UncheckedIOException("The Prometheus reporter could not listen on " + host + ":" + port
          + ": " + e.getMessage(), e);
    }
    log.info("Serving metrics for Prometheus at http://{}:{}/metrics.", host, server.getPort());
  }

  /** The port it listens on (the given one, or the one chosen for port 0). */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.stop();
    super.close();
  }

  /**
   * The registry the base class fills. It is package-private in {@code AbstractPrometheusReporter}
   * (only Flink's own reporters, in its package, serve it), so it is read by reflection; a Flink
   * that renames it fails here, at the reporter's start, with this message.
   */
  private static CollectorRegistry registry(AbstractPrometheusReporter reporter) {
    try {
      Field f = AbstractPrometheusReporter.class.getDeclaredField("registry");
      f.setAccessible(true);
      return (CollectorRegistry) f.get(reporter);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("This Flink's AbstractPrometheusReporter has no 'registry'"
          + " field to serve; expected flink-metrics-prometheus 2.2.", e);
    }
  }
}
