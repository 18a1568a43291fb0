package io.logbench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.cli.Main;
import io.logbench.sink.kafka.KafkaTestBroker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard's metrics exist in a live run: generate (discard, and the real test Kafka)
 * and verify run
 * in-process with {@code --prometheus 127.0.0.1:<free port>}, {@code /metrics} is scraped while
 * they run, and every metric that a query of deploy/grafana/logbench.json names is in a scrape,
 * with every label the query groups or filters by.
 */
class PrometheusDashboardITCase {

  static final String TOPIC = "metrics-it";
  static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "logbench.json");
  static final Pattern METRIC = Pattern.compile("\\b(flink_[A-Za-z0-9_:]+)");
  static final Pattern BY = Pattern.compile("\\bby\\s*\\(([^)]*)\\)");
  static final Pattern SELECTOR = Pattern.compile("(flink_[A-Za-z0-9_:]+)\\{([^}]*)}");
  static final Pattern MATCHER = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\s*(=~|!~|!=|=)");

  @TempDir Path dir;

  /** Metric names seen in any scrape, with the label names seen on them. */
  final Map<String, Set<String>> seen = new ConcurrentHashMap<>();

  @Test
  void everyMetricAndLabelTheDashboardQueriesIsExported() throws Exception {
    Map<String, Set<String>> wanted = dashboardQueries(new ObjectMapper().readTree(DASHBOARD.toFile()));
    assertThat(wanted).as("metrics the dashboard queries").hasSizeGreaterThanOrEqualTo(10);

    KafkaTestBroker.get().createTopic(TOPIC, 2);
    Path config = dir.resolve("metrics.yaml");
    Files.writeString(config, String.join("\n",
        "name: metrics",
        "dataset: {kind: app-json, lines: 30000, rate: 3000}",
        "schedule: {kind: constant, rate: 3000}",
        "timestamps: now",
        "window: 2s",
        "parallelism: 2",
        "run: {dir: " + dir.resolve("run") + "}",
        "backends:",
        "  - {kind: discard, name: discard}",
        "  - {kind: kafka, name: kafka, bootstrap: '" + KafkaTestBroker.get().bootstrap() + "', topic: " + TOPIC + "}",
        ""));
    int port = freePort();
    String address = "127.0.0.1:" + port;
    Scraper scraper = new Scraper(URI.create("http://" + address + "/metrics"));
    scraper.start();
    try {
      run("generate", config.toString(), "--prometheus", address, "--quiet");
      // the last window (of run time: timestamps now) is judged 10 s after its end, so the verify
      // job runs for some seconds at least, and its metrics are scraped while it does
      run("verify", config.toString(), "--prometheus", address, "--quiet", "--settle", "10s");
    } finally {
      scraper.finish();
    }
    assertThat(scraper.scrapes).as("answered scrapes").isGreaterThan(5);

    List<String> absent = new ArrayList<>();
    wanted.forEach((metric, labels) -> {
      Set<String> have = seen.get(metric);
      if (have == null) {
        absent.add(metric);
      } else if (!have.containsAll(labels)) {
        Set<String> missing = new TreeSet<>(labels);
        missing.removeAll(have);
        absent.add(metric + " without label(s) " + missing);
      }
    });
    assertThat(absent).as("dashboard metrics not exported (exported with backend label: %s)",
        seen.keySet().stream().filter(n -> n.contains("_backend_")).sorted().toList()).isEmpty();
    // the values are the run's: the acknowledged lines of both backends were exported
    assertThat(seen).containsKeys("flink_taskmanager_job_task_operator_backend_linesAcked",
        "flink_taskmanager_job_task_operator_backend_status_windows");
  }

  @Test
  void theQueryParserFindsMetricsAndLabels() {
    Map<String, Set<String>> q = new TreeMap<>();
    parse("sum by (backend, cause) (rate(flink_a_b{backend=~\"$backend\", quantile=\"0.95\"}[1m])) > 0", q);
    parse("max(flink_c) / 1000", q);
    assertThat(q).containsOnlyKeys("flink_a_b", "flink_c");
    assertThat(q.get("flink_a_b")).containsExactlyInAnyOrder("backend", "cause", "quantile");
    assertThat(q.get("flink_c")).isEmpty();
  }

  private void run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as("%s exit code; stdout:%n%s%nstderr:%n%s", args[0], out, err).isZero();
  }

  /**
   * Each metric the dashboard's queries name, with the labels they group or filter it by, but for
   * the panels of its "canary" row (the canary's series, which {@link CanaryPrometheusITCase}
   * checks).
   */
  static Map<String, Set<String>> dashboardQueries(JsonNode dashboard) {
    Map<String, Set<String>> out = new TreeMap<>();
    queries(dashboard, false).forEach(e -> parse(e, out));
    return out;
  }

  /** The queries of the panels under the row "canary" ({@code canaryRow}) or of every other panel. */
  static List<String> queries(JsonNode dashboard, boolean canaryRow) {
    List<String> out = new ArrayList<>();
    String row = "";
    for (JsonNode panel : dashboard.path("panels")) {
      if (panel.path("type").asText().equals("row")) {
        row = panel.path("title").asText();
      }
      if (row.equals("canary") == canaryRow) {
        panel.findValues("expr").forEach(e -> out.add(e.asText()));
      }
    }
    return out;
  }

  static void parse(String expr, Map<String, Set<String>> out) {
    Matcher m = METRIC.matcher(expr);
    List<String> names = new ArrayList<>();
    while (m.find()) {
      names.add(m.group(1));
      out.computeIfAbsent(m.group(1), k -> new TreeSet<>());
    }
    Matcher s = SELECTOR.matcher(expr);
    while (s.find()) {
      Matcher l = MATCHER.matcher(s.group(2));
      while (l.find()) {
        out.get(s.group(1)).add(l.group(1));
      }
    }
    // 'by (...)' groups the metrics of its expression: each needs the labels
    Matcher by = BY.matcher(expr);
    while (by.find()) {
      for (String label : by.group(1).split(",")) {
        names.forEach(n -> out.get(n).add(label.trim()));
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Scrapes every 200 ms until finished; between jobs nothing listens, and that is counted too. */
  final class Scraper extends Thread {
    private final URI uri;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private volatile boolean done;
    volatile int scrapes;

    Scraper(URI uri) {
      super("metrics-scraper");
      this.uri = uri;
      setDaemon(true);
    }

    @Override
    public void run() {
      while (!done) {
        try {
          HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() == 200) {
            scrapes++;
            record(r.body());
          }
        } catch (IOException e) {
          // no job is running at this moment: nothing listens
        } catch (InterruptedException e) {
          return;
        }
        synchronized (this) {
          try {
            // the pause between scrapes; finish() wakes it at once
            wait(200);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }

    void finish() throws InterruptedException {
      done = true;
      synchronized (this) {
        notifyAll();
      }
      join(10_000);
    }
  }

  void record(String exposition) {
    for (String line : exposition.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.indexOf(' ');
      String name = line.substring(0, brace >= 0 && brace < space ? brace : space);
      Set<String> labels = seen.computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet());
      if (brace >= 0 && brace < space) {
        Matcher l = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"").matcher(line.substring(brace, line.lastIndexOf('}')));
        while (l.find()) {
          labels.add(l.group(1));
        }
      }
    }
  }
}
