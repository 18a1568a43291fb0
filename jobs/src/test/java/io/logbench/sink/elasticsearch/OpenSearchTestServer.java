package io.logbench.sink.elasticsearch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.transport.Netty4Plugin;

/**
 * A real OpenSearch 2.19.6 node inside the test JVM, bound to 127.0.0.1, started once for every
 * ITCase of the JVM (Failsafe runs them all in one fork) and stopped by a shutdown hook.
 */
public final class OpenSearchTestServer {

  private static OpenSearchTestServer instance;

  private final Node node;
  private final Path home;
  private final String url;
  private final long startMillis;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();

  /** The node's answer to a plain request made by a test. */
  public record Answer(int status, String body) {}

  private OpenSearchTestServer() throws Exception {
    long t0 = System.nanoTime();
    this.home = Files.createTempDirectory("logbench-opensearch");
    int httpPort = freePort();
    int transportPort = freePort();
    Settings settings =
        Settings.builder()
            .put("path.home", home.toString())
            .put("cluster.name", "logbench-test")
            .put("node.name", "logbench-test-node")
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", httpPort)
            .put("transport.port", transportPort)
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .build();
    Environment env = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "logbench-test-node");
    this.node = new PluginNode(env);
    node.start();
    this.url = "http://127.0.0.1:" + httpPort;
    Answer health = request("GET", "/_cluster/health?wait_for_status=yellow&timeout=60s", null);
    if (health.status() != 200) {
      throw new IllegalStateException("OpenSearch did not become ready: " + health);
    }
    this.startMillis = (System.nanoTime() - t0) / 1_000_000;
  }

  /** The shared node, started on first use. */
  public static synchronized OpenSearchTestServer get() {
    if (instance == null) {
      try {
        instance = new OpenSearchTestServer();
      } catch (Exception e) {
        throw new IllegalStateException("OpenSearch could not be started in the test JVM.", e);
      }
      OpenSearchTestServer started = instance;
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "opensearch-test-stop"));
    }
    return instance;
  }

  /** Base URL of the node's HTTP interface. */
  public String url() {
    return url;
  }

  /** How long the node took to start and become ready. */
  public long startMillis() {
    return startMillis;
  }

  /** A plain JSON request (for setting up and checking indexes). */
  public Answer request(String method, String path, String jsonBody) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url + path))
            .timeout(Duration.ofSeconds(90))
            .method(
                method,
                jsonBody == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8));
    if (jsonBody != null) {
      b.header("Content-Type", "application/json");
    }
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void stop() {
    try {
      node.close();
    } catch (IOException e) {
      // the JVM is exiting; nothing to report to
    }
    try (Stream<Path> files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort cleanup of the temp dir
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** A node with the Netty HTTP/transport plugin on the classpath (no plugins directory needed). */
  private static final class PluginNode extends Node {
    PluginNode(Environment env) {
      super(env, List.of(Netty4Plugin.class), true);
    }
  }
}
