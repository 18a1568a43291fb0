package io.logbench.sink.elasticsearch;

import io.logbench.servers.OpenSearchNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A real OpenSearch 2.19.6 node inside the test JVM ({@link OpenSearchNode}: the recipe {@code
 * logbench quickstart} starts too), bound to 127.0.0.1, started once for every ITCase of the JVM
 * (Failsafe runs them all in one fork) and stopped by a shutdown hook.
 */
public final class OpenSearchTestServer {

  private static OpenSearchTestServer instance;

  private final OpenSearchNode node;
  private final Path home;
  private final String url;
  private final long startMillis;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();

  /** The node's answer to a plain request made by a test. */
  public record Answer(int status, String body) {}

  private OpenSearchTestServer() throws Exception {
    this.home = Files.createTempDirectory("logbench-opensearch");
    this.node = OpenSearchNode.start(home, 0);
    this.url = node.url();
    this.startMillis = node.startTime().toMillis();
    // every run's stored size waits until the node's cached store size is younger than the index's
    // last change (index.store.stats_refresh_interval, 10 s by default); the tests' indices cache it
    // for 1 s, so a run waits a second instead of ten, except the quickstart's (quickstart-*), which
    // keeps the default a user's node has
    template("logbench-tests-short-store-cache", "*", 0, "{\"index.store.stats_refresh_interval\":\"1s\"}");
    template("logbench-tests-quickstart-defaults", "quickstart-*", 1, "{}");
  }

  private void template(String name, String pattern, int priority, String settings) {
    Answer a = request("PUT", "/_index_template/" + name, "{\"index_patterns\":[\"" + pattern + "\"],\"priority\":"
        + priority + ",\"template\":{\"settings\":" + settings + "}}");
    if (a.status() != 200) {
      throw new IllegalStateException("OpenSearch did not take the index template " + name + ": " + a.body());
    }
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

  /**
   * The bytes of the Lucene files of every shard of {@code index} in the node's data directory
   * (each shard's {@code index/} folder; its translog apart): what {@code _stats/store} counts.
   */
  public long indexFileBytes(String index) {
    Answer settings = request("GET", "/" + index + "/_settings", null);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"uuid\"\\s*:\\s*\"([^\"]+)\"")
        .matcher(settings.body());
    if (settings.status() != 200 || !m.find()) {
      throw new IllegalStateException("No uuid for index " + index + ": " + settings.body());
    }
    Path shards = home.resolve("data").resolve("nodes").resolve("0").resolve("indices").resolve(m.group(1));
    return io.logbench.testing.ExternalServer.fileBytes(shards,
        p -> p.getParent().getFileName().toString().equals("index"));
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
}
