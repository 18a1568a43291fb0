package io.logbench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.job.CanaryJob;
import io.logbench.job.FlinkEnvironments;
import io.logbench.job.GenerateJob;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.run.CanaryRun;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The canary's metrics as Prometheus scrapes them: a canary (the command's own {@link CanaryRun}
 * and {@link CanaryJob}, in this JVM) into the files backend and the VictoriaLogs emulator, with
 * Flink's Prometheus reporter on 127.0.0.1 ({@link LoopbackPrometheusReporter}, what {@code
 * --prometheus} configures), is scraped until three windows of each backend are OK and the
 * write-to-visible histogram has samples. Then every exported name the alert rules
 * (deploy/prometheus/logbench-canary.rules.yaml) and the dashboard's canary panels name must be in
 * the scrape with the labels they use, and the values must be the run's. The exact names are
 * {@link #NAMES}; docs/canary.md lists the same. About 30 s.
 */
class CanaryPrometheusITCase {

  static final String P = "flink_taskmanager_job_task_operator_backend_";
  /** Every canary series a backend exports (visibility sampled), by exact name. */
  static final List<String> NAMES = List.of(
      P + "status_canaryWindows",
      P + "canaryExpectedLines", P + "canaryAckedLines", P + "canaryObservedLines", P + "canaryMissingLines",
      P + "canaryDuplicateLines", P + "canaryReplayedLines", P + "canaryLostLines",
      P + "canarySpotChecks", P + "canarySpotLostWindows", P + "canaryNewestSettledWindowSeconds",
      P + "canaryStartedSeconds", P + "canaryOpenWindows", P + "canaryStoredWindows", P + "canaryCountErrors",
      P + "canaryLateRows", P + "canaryGapWindows",
      P + "linesSent", P + "linesAcked",
      P + "le_visibleFromScheduleSeconds_bucket", P + "visibleFromScheduleSeconds_count",
      P + "visibleFromScheduleSeconds_sum");
  static final Path RULES = Path.of("..", "deploy", "prometheus", "logbench-canary.rules.yaml");
  static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "logbench.json");
  static final Pattern SAMPLE = Pattern.compile("^([A-Za-z_:][A-Za-z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)$");
  static final Pattern LABEL = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** One series of a scrape. */
  record Sample(String name, Map<String, String> labels, double value) {}

  @TempDir Path dir;

  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator();

  @AfterEach
  void stop() {
    vl.close();
  }

  @Test
  void theCanarysSeriesAreExportedUnderTheNamesTheRulesAndTheDashboardUse() throws Exception {
    Path config = dir.resolve("canary.yaml");
    Files.writeString(config, String.join("\n",
        "name: prom",
        "dataset: {kind: app-json, streams: 2}",
        "schedule: {kind: constant, rate: 50}",
        "window: 2s",
        "batch: {lines: 5}",
        "parallelism: 1",
        "run: {checkpoint_interval: 2s}",
        "visibility: {sample: 2, poll: 100ms}",
        "canary: {settle: 1s, max_wait: 4s, recheck: 1s, retention: 1d,",
        "         spot_checks: {ages: [6s], older_per_hour: 0}}",
        "backends:",
        "  - {kind: files, name: files, dir: '" + dir.resolve("logs") + "'}",
        "  - {kind: victorialogs, name: vl, url: '" + vl.url() + "', timeout: 5s}",
        ""));
    int port = freePort();
    URI metrics = URI.create("http://127.0.0.1:" + port + "/metrics");
    RunConfig rc = ConfigLoader.load(config);
    long before = System.currentTimeMillis() / 1000;
    List<Sample> last;
    try (CanaryRun run = CanaryRun.prepare(config, rc, rc.canary(), dir.resolve("run").toString(),
        GenerateJob.DEFAULT_START_LEAD)) {
      CanaryJob job = run.start(note -> { });
      JobClient client = job.start(FlinkEnvironments.create(rc.parallelism(),
          LoopbackPrometheusReporterFactory.configuration("127.0.0.1", port)));
      try {
        last = scrapeUntil(metrics, Duration.ofSeconds(120), s -> {
          for (String b : List.of("files", "vl")) {
            if (value(s, P + "status_canaryWindows", Map.of("backend", b, "status", "OK")) < 3
                || value(s, P + "canarySpotChecks", Map.of("backend", b)) < 1
                || value(s, P + "le_visibleFromScheduleSeconds_bucket", Map.of("backend", b, "le", "+Inf")) < 1) {
              return false;
            }
          }
          return true;
        });
        // the delivery's live counters, one scrape apart: a scrape reads each gauge at its own
        // moment, so within one a later-read linesAcked may pass an earlier-read linesSent
        List<Sample> first = last;
        List<Sample> later = scrapeUntil(metrics, Duration.ofSeconds(30), s -> true);
        assertThat(value(later, P + "linesAcked", Map.of("backend", "vl"))).as("vl: acked by the delivery")
            .isGreaterThanOrEqualTo(value(first, P + "canaryAckedLines", Map.of("backend", "vl"))).isPositive();
        assertThat(value(later, P + "linesSent", Map.of("backend", "vl"))).as("vl: sent by the delivery")
            .isGreaterThanOrEqualTo(value(first, P + "linesAcked", Map.of("backend", "vl")));
      } finally {
        job.stop(true).get(60, TimeUnit.SECONDS);
        try {
          client.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          // cancelled, as asked
        }
      }
    }
    long after = System.currentTimeMillis() / 1000;

    Map<String, Set<String>> seen = new TreeMap<>();
    for (Sample s : last) {
      seen.computeIfAbsent(s.name(), k -> new TreeSet<>()).addAll(s.labels().keySet());
    }
    assertThat(seen.keySet()).as("exported canary names").containsAll(NAMES);
    assertThat(seen.get(P + "status_canaryWindows")).contains("backend", "status", "job_name");
    assertThat(seen.get(P + "le_visibleFromScheduleSeconds_bucket")).contains("backend", "le");

    // label values as named (Flink's reporter would make le="+Inf" "_Inf" and the job name's spaces '_')
    assertThat(last).anyMatch(s -> s.name().equals(P + "status_canaryWindows")
        && "logbench canary prom".equals(s.labels().get("job_name")));
    for (String b : List.of("files", "vl")) {
      Set<String> les = new TreeSet<>();
      last.stream().filter(s -> s.name().equals(P + "le_visibleFromScheduleSeconds_bucket")
          && b.equals(s.labels().get("backend"))).forEach(s -> les.add(s.labels().get("le")));
      assertThat(les).as(b + " buckets").containsExactlyInAnyOrder("0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10",
          "30", "60", "+Inf");
      Map<String, String> of = Map.of("backend", b);
      // each series reads the histogram afresh, so within one scrape they may differ by a late sample
      assertThat(value(last, P + "visibleFromScheduleSeconds_count", of)).as(b + " visible samples").isPositive();
      assertThat(value(last, P + "visibleFromScheduleSeconds_sum", of)).as(b + " seconds, summed").isPositive();
      assertThat(value(last, P + "canaryStartedSeconds", of)).as(b).isBetween((double) before, (double) after);
      assertThat(value(last, P + "canaryNewestSettledWindowSeconds", of)).as(b + " newest settled window end")
          .isBetween((double) before, (double) after);
    }
    // the values of the files backend, which holds every line once (the emulator may hold a
    // resent batch twice on a busy machine: DUPLICATE, which is what the canary is for)
    Map<String, String> files = Map.of("backend", "files");
    double expected = value(last, P + "canaryExpectedLines", files);
    assertThat(expected).as("expected lines").isGreaterThan(0);
    assertThat(value(last, P + "canaryAckedLines", files)).isEqualTo(expected);
    assertThat(value(last, P + "canaryObservedLines", files)).isEqualTo(expected);
    assertThat(value(last, P + "canaryMissingLines", files)).isZero();
    assertThat(value(last, P + "canaryDuplicateLines", files)).isZero();
    assertThat(value(last, P + "canarySpotLostWindows", files)).isZero();
    assertThat(value(last, P + "canaryLostLines", files)).isZero();
    assertThat(value(last, P + "canaryCountErrors", files)).isZero();
    assertThat(value(last, P + "status_canaryWindows", Map.of("backend", "files", "status", "MISSING"))).isZero();
    // the delivery's live counters were checked above, one scrape apart (the files backend writes
    // through a writer of its own, without them)

    // every series the rules and the dashboard's canary panels query, with their labels
    Map<String, Set<String>> wanted = new TreeMap<>();
    JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(RULES.toFile());
    List<String> exprs = new ArrayList<>();
    rules.path("groups").forEach(g -> g.path("rules").forEach(r -> exprs.add(r.path("expr").asText())));
    assertThat(exprs).as("alert rules").hasSizeGreaterThanOrEqualTo(4);
    List<String> panels = PrometheusDashboardITCase.queries(new ObjectMapper().readTree(DASHBOARD.toFile()), true);
    assertThat(panels).as("the dashboard's canary row").hasSizeGreaterThanOrEqualTo(10);
    exprs.addAll(panels);
    exprs.forEach(e -> PrometheusDashboardITCase.parse(e, wanted));
    assertThat(wanted).as("series the rules and panels query").hasSizeGreaterThanOrEqualTo(6);
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
    assertThat(absent).as("queried but not exported").isEmpty();
  }

  /** The sum of the series named {@code name} whose labels include {@code match}; 0 when none. */
  static double value(List<Sample> scrape, String name, Map<String, String> match) {
    double sum = 0;
    for (Sample s : scrape) {
      if (s.name().equals(name) && s.labels().entrySet().containsAll(match.entrySet())) {
        sum += s.value();
      }
    }
    return sum;
  }

  /** Scrapes every 250 ms until {@code done} holds for a scrape, which it returns; fails at the timeout. */
  static List<Sample> scrapeUntil(URI uri, Duration timeout, Predicate<List<Sample>> done) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Sample> last = List.of();
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          last = parse(r.body());
          if (done.test(last)) {
            return last;
          }
        }
      } catch (IOException e) {
        // the reporter is not listening yet
      }
      LockSupport.parkNanos(250_000_000L); // the pause between two scrapes
    }
    List<Sample> seen = last;
    throw new AssertionError("the canary's metrics did not reach three OK windows, a spot check and a visible"
        + " sample per backend in " + timeout + "; last scrape's canary series: "
        + seen.stream().filter(s -> s.name().contains("canary") || s.name().contains("visibleFromSchedule"))
            .map(s -> s.name() + s.labels().getOrDefault("backend", "") + s.labels().getOrDefault("status", "")
                + "=" + s.value()).toList());
  }

  static List<Sample> parse(String exposition) {
    List<Sample> out = new ArrayList<>();
    for (String line : exposition.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(2) != null) {
        Matcher l = LABEL.matcher(m.group(2));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      out.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3).replace("+Inf", "Infinity"))));
    }
    return out;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
