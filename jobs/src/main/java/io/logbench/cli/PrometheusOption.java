package io.logbench.cli;

import io.logbench.metrics.LoopbackPrometheusReporterFactory;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Option;

/**
 * {@code --prometheus HOST:PORT}, shared by the commands that run a job: the job's metrics are
 * served for Prometheus at {@code http://HOST:PORT/metrics} by {@link
 * io.logbench.metrics.LoopbackPrometheusReporter}, bound to that address only, while the job runs
 * in-process. (On a cluster the reporter is the cluster's configuration: see
 * docs/getting-started.md.)
 */
final class PrometheusOption {

  @Option(names = "--prometheus", paramLabel = "HOST:PORT",
      description = "Serve the job's metrics for Prometheus at http://HOST:PORT/metrics while it runs"
          + " in-process (bound to HOST only, e.g. 127.0.0.1:9249).")
  String address;

  /**
   * How long a port in use may take to be free: a job that just ended in this JVM (quickstart runs
   * generate, then verify) closes its cluster, and with it the reporter, a moment after it ends.
   */
  static final Duration RELEASE_WAIT = Duration.ofSeconds(30);

  /** Null once {@code host:port} can be bound; the last failure when it could not in time. */
  static IOException awaitFree(String host, int port) {
    long deadline = System.nanoTime() + RELEASE_WAIT.toNanos();
    while (true) {
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getByName(host), port));
        return null;
      } catch (BindException e) {
        if (System.nanoTime() > deadline) {
          return e;
        }
        // in use: try again in 100 ms, until the deadline
        LockSupport.parkNanos(100_000_000L);
      } catch (IOException e) {
        return e; // not an address of this machine: waiting does not help
      }
    }
  }

  /** The option's words for another command line (quickstart passes it on); empty when unset. */
  List<String> args() {
    return address == null ? List.of() : List.of("--prometheus", address);
  }

  /**
   * The Flink configuration of the reporter, or an empty one without the option. The address is
   * checked first (a host of this machine, a free port), since Flink only logs a reporter that
   * fails to start.
   */
  Configuration configuration(String command) {
    if (address == null) {
      return new Configuration();
    }
    int colon = address.lastIndexOf(':');
    String host = colon > 0 ? address.substring(0, colon) : "";
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = -1;
    try {
      port = colon > 0 ? Integer.parseInt(address.substring(colon + 1)) : -1;
    } catch (NumberFormatException e) {
      // reported below
    }
    if (host.isEmpty() || port < 1 || port > 65535) {
      throw new UsageException(command + ": --prometheus " + address + " is not valid; expected HOST:PORT,"
          + " such as 127.0.0.1:9249.");
    }
    IOException refused = awaitFree(host, port);
    if (refused != null) {
      throw new UsageException(command + ": --prometheus " + address + " cannot be listened on ("
          + refused.getMessage() + "); expected an address of this machine and a free port.");
    }
    return LoopbackPrometheusReporterFactory.configuration(host, port);
  }
}
