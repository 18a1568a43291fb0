package io.logbench.servers;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.transport.Netty4Plugin;

/**
 * One real OpenSearch node (single-node discovery) with its home in a directory of its own, HTTP
 * and transport bound to 127.0.0.1 only. The Netty plugin is passed to the node directly, so no
 * plugins directory or distribution is needed.
 */
public final class OpenSearchNode implements AutoCloseable {

  /** How long the node may take to report a yellow cluster. */
  static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  /** OpenSearch's switch for setting Netty's processor count (see {@link #start}). */
  private static final String NETTY_PROCESSORS = "opensearch.set.netty.runtime.available.processors";

  private final Node node;
  private final Path home;
  private final String url;
  private final Duration startTime;

  private OpenSearchNode(Node node, Path home, String url, Duration startTime) {
    this.node = node;
    this.home = home;
    this.url = url;
    this.startTime = startTime;
  }

  /**
   * Starts a node with its home in {@code home} and HTTP on {@code 127.0.0.1:httpPort} (0: a free
   * port); returns once the cluster is yellow.
   */
  public static OpenSearchNode start(Path home, int httpPort) throws Exception {
    long t0 = System.nanoTime();
    // OpenSearch fixes Netty's processor count once per JVM and refuses to start when something
    // else used Netty first (logbench's HTTP transport does, in the test JVM): Netty then keeps the
    // count it read from the JVM, which is what OpenSearch would have set anyway.
    if (System.getProperty(NETTY_PROCESSORS) == null) {
      System.setProperty(NETTY_PROCESSORS, "false");
    }
    int http = httpPort == 0 ? Ports.free() : httpPort;
    Settings settings =
        Settings.builder()
            .put("path.home", home.toString())
            .put("cluster.name", "logbench")
            .put("node.name", "logbench-node")
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", http)
            .put("transport.port", Ports.free())
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .build();
    Environment env = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "logbench-node");
    Node node = new PluginNode(env);
    node.start();
    String url = "http://127.0.0.1:" + http;
    try {
      awaitYellow(url);
    } catch (Exception e) {
      node.close();
      throw e;
    }
    return new OpenSearchNode(node, home, url, Duration.ofNanos(System.nanoTime() - t0));
  }

  private static void awaitYellow(String url) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).build();
    // the node waits for the status itself, up to the timeout given in the request
    HttpResponse<String> r = http.send(
        HttpRequest.newBuilder(URI.create(url + "/_cluster/health?wait_for_status=yellow&timeout="
                + READY_TIMEOUT.toSeconds() + "s"))
            .timeout(READY_TIMEOUT.plusSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("The OpenSearch node at " + url + " did not become ready within "
          + READY_TIMEOUT.toSeconds() + " s: HTTP " + r.statusCode() + " " + r.body());
    }
  }

  /** Base URL of the node's HTTP interface, {@code http://127.0.0.1:<port>}. */
  public String url() {
    return url;
  }

  /** The node's home directory. */
  public Path home() {
    return home;
  }

  /** How long the node took to start and become ready. */
  public Duration startTime() {
    return startTime;
  }

  /** Stops the node; its home stays (the caller owns it). */
  @Override
  public void close() throws IOException {
    node.close();
  }

  /** A node with the Netty HTTP/transport plugin on the classpath (no plugins directory needed). */
  private static final class PluginNode extends Node {
    PluginNode(Environment env) {
      super(env, List.of(Netty4Plugin.class), true);
    }
  }
}
