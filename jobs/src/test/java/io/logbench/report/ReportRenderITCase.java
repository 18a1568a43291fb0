package io.logbench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.cli.Main;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.sink.loki.LokiEmulator;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.testing.HeadlessChromium;
import io.logbench.testing.LoopbackMiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code report.html} of real run directories: {@code generate} and {@code verify} run on a
 * MiniCluster against the Loki and VictoriaLogs emulators (not real servers) with faults injected
 * (Loki loses 7 acknowledged lines, VictoriaLogs refuses a batch with 400 and stores a timed-out
 * batch that was resent), and a discard backend; then the page is opened in headless Chromium
 * (Debian's {@code chromium}; the test is skipped when it is not installed) and checked: every
 * chart drew as many points as the run's files hold, the console has no error, and the page
 * asked for nothing but itself.
 */
class ReportRenderITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(4);

  private static final int LOST = 7;
  private static final long LINES = 1600; // 200/s ramped 1 s, held 2 s; 300/s ramp, 400/s held 2 s
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final LokiEmulator loki = new LokiEmulator();
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator();

  @AfterEach
  void stop() {
    loki.close();
    vl.close();
  }

  private record Outcome(int code, String out, String err) {
    String printed() {
      return out + err;
    }
  }

  private static Outcome main(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private Path ladderRunFile() throws Exception {
    Path config = dir.resolve("ladder.yaml");
    Files.writeString(config, String.join("\n",
        "name: report-it",
        "dataset: {kind: app-json, streams: 3}",
        "schedule: {kind: ladder, steps: [200, 400], ramp: 1s, hold: 2s}",
        "timestamps: now",
        "window: 1s",
        "zone: America/Sao_Paulo",
        "parallelism: 2",
        "batch: {lines: 50}",
        "run: {checkpoint_interval: 1s}",
        "backends:",
        "  - {kind: loki, url: '" + loki.url() + "', timeout: 5s}",
        "  - {kind: victorialogs, name: vl, url: '" + vl.url() + "', timeout: 1s}",
        "  - {kind: discard, name: devnull}",
        ""));
    return config;
  }

  @Test
  void generateWritesAReportVerifyRefreshesItAndEveryChartDrawsTheRunsData() throws Exception {
    Path config = ladderRunFile();
    Path run = dir.resolve("run");
    loki.faults().loseFromNext(LOST);
    // a refused batch (400: not retried), then a batch answered after the sender's 1 s timeout:
    // resent and stored, and the late first copy is stored too
    vl.faults().failNext(1, 400, "bad request").delayNext(1, Duration.ofSeconds(3));

    Outcome generated = main("generate", config.toString(), "--run-dir", run.toString());
    // VictoriaLogs refused 50 lines: generate fails, and still writes the report
    assertThat(generated.code()).as(generated.printed()).isEqualTo(1);
    assertThat(generated.out()).contains("wrote " + run.resolve("report.html"));
    String afterGenerate = Files.readString(run.resolve("report.html"));
    assertThat(afterGenerate).contains("No verdicts yet: verify has not run on this run directory");

    Outcome verified = main("verify", config.toString(), "--run-dir", run.toString());
    assertThat(verified.code()).as(verified.printed()).isEqualTo(1);
    assertThat(verified.err()).contains("backend loki is missing " + LOST + " acknowledged line(s)");
    assertThat(verified.out()).contains("wrote " + run.resolve("report.html"));
    String html = Files.readString(run.resolve("report.html"));
    assertThat(html).doesNotContain("No verdicts yet").doesNotContain("<script src").doesNotContain("<link");

    Set<Long> lostIds = lokiLostIds();
    assertThat(lostIds).hasSize(LOST);

    Path chromium = HeadlessChromium.binary();
    assumeTrue(chromium != null, "Chromium is not installed (/usr/bin/chromium, or set CHROMIUM): the page is"
        + " not opened. .ci/run installs it with apt-get install -y chromium where it can.");
    try (HeadlessChromium browser = HeadlessChromium.start(chromium, 1200, 900)) {
      browser.open(run.resolve("report.html").toUri().toString());
      JsonNode drawn = awaitCharts(browser);

      Expected ex = Expected.of(run);
      for (String backend : List.of("loki", "vl", "devnull")) {
        JsonNode series = drawn.path("windows-" + backend).path("series");
        assertThat(points(series, "expected")).as(backend).isEqualTo(ex.windows(backend));
        assertThat(points(series, "acked")).as(backend).isEqualTo(ex.windows(backend));
        assertThat(points(series, "observed")).as(backend).isEqualTo(ex.observed(backend));
        assertThat(points(series, "lost")).as(backend).isEqualTo(ex.status(backend, "MISSING"));
        assertThat(points(series, "duplicated")).as(backend).isEqualTo(ex.status(backend, "DUPLICATE"));
        assertThat(points(series, "not acked")).as(backend).isEqualTo(ex.notAcked(backend));
        series.fields().forEachRemaining(s -> assertThat(s.getValue().path("drawn").asBoolean()
            || s.getValue().path("points").asLong() == 0).as(backend + " " + s.getKey() + " was drawn").isTrue());
      }
      assertThat(ex.status("loki", "MISSING")).isPositive();
      assertThat(ex.notAcked("vl")).as("windows of vl's refused batch").isPositive();
      assertThat(ex.status("vl", "DUPLICATE")).as("vl's late copy of a resent batch").isPositive();

      // the page's data, drawn above, says what the emulator lost: 7 lines, and which ones
      JsonNode lostValues = browser.evaluate("JSON.parse(document.getElementById('report-data').textContent)"
          + ".sections.find(s => s.id === 'windows').blocks.find(b => b.id === 'windows-loki')"
          + ".series.find(s => s.label === 'lost').values");
      long lostSum = 0;
      for (JsonNode v : lostValues) {
        lostSum += v.isNull() ? 0 : v.asLong();
      }
      assertThat(lostSum).isEqualTo(LOST);
      List<String> idRows = List.of(browser.evaluate("document.getElementById('missing-ids').innerText")
          .asText().split("\n"));
      for (long id : lostIds) {
        assertThat(idRows).as("drill-down row of id " + id)
            .anyMatch(row -> row.matches("loki\t\\S+\tmissing\t" + id + "\t.*"));
      }
      String overview = browser.evaluate("document.getElementById('overview').innerText").asText();
      assertThat(overview).contains("Backend loki lost " + LOST + " acknowledged line(s)");

      JsonNode steps = drawn.path("steps").path("series");
      assertThat(points(steps, "target")).isEqualTo(2);
      for (String backend : List.of("loki", "vl", "devnull")) {
        assertThat(points(steps, backend + " achieved")).as(backend).isEqualTo(2);
      }
      JsonNode latency = drawn.path("latency-profile").path("series");
      for (String backend : List.of("loki", "vl", "devnull")) {
        assertThat(points(latency, backend)).as(backend).isEqualTo(ex.positiveLatencies(backend));
      }
      assertThat(drawn.size()).as("charts drawn").isEqualTo(5);
      assertThat(browser.errors()).as("console errors").isEmpty();
      assertThat(browser.requests()).as("requests").allMatch(u -> u.startsWith("file:") || u.startsWith("data:")
          || u.startsWith("about:"));

      byte[] png = browser.screenshot(2600);
      assertThat(png).startsWith(0x89, 'P', 'N', 'G');
      Path shot = Path.of("target", "report-it", "report.png");
      Files.createDirectories(shot.getParent());
      Files.write(shot, png);
      // docs/img/report.png is made with -Dlogbench.report.screenshot=../docs/img/report.png
      String docs = System.getProperty("logbench.report.screenshot");
      if (docs != null && !docs.isBlank()) {
        Files.write(Path.of(docs), png);
      }
    }
  }

  @Test
  void compareShowsTwoRunsSideBySideAndAFailedReportOnlyWarns() throws Exception {
    Path slow = dir.resolve("slow");
    Path fast = dir.resolve("fast");
    Path slowFile = constantRunFile("slow", 200);
    Path fastFile = constantRunFile("fast", 400);
    assertThat(main("generate", slowFile.toString(), "--run-dir", slow.toString()).code()).isZero();
    // report.html is a directory here: the report cannot be written, generate still succeeds
    Files.createDirectories(fast.resolve("report.html"));
    Outcome f = main("generate", fastFile.toString(), "--run-dir", fast.toString());
    assertThat(f.code()).as(f.printed()).isZero();
    assertThat(f.err()).contains("generate: warning: the report " + fast.resolve("report.html")
        + " could not be written:");
    Files.delete(fast.resolve("report.html"));

    Path page = dir.resolve("compare.html");
    Outcome c = main("report", slow.toString(), "--compare", fast.toString(), "--out", page.toString());
    assertThat(c.code()).as(c.printed()).isZero();
    assertThat(c.out()).startsWith("wrote " + page);
    Outcome r = main("report", fast.toString());
    assertThat(r.code()).as(r.printed()).isZero();
    assertThat(fast.resolve("report.html")).isRegularFile();

    Path chromium = HeadlessChromium.binary();
    assumeTrue(chromium != null, "Chromium is not installed (/usr/bin/chromium, or set CHROMIUM): the page is"
        + " not opened. .ci/run installs it with apt-get install -y chromium where it can.");
    try (HeadlessChromium browser = HeadlessChromium.start(chromium, 1200, 900)) {
      browser.open(page.toUri().toString());
      JsonNode drawn = awaitCharts(browser);
      JsonNode latency = drawn.path("compare-latency").path("series");
      assertThat(points(latency, "A: devnull") + points(latency, "B: devnull")).isPositive();
      String table = browser.evaluate("document.getElementById('compare-table').innerText").asText();
      // expected lines: 2 s at 200/s and at 400/s
      assertThat(table).contains("expected lines\tdevnull\t400\t800\t400\t+100.0%\tlines");
      assertThat(table).contains("acked lines\tdevnull\t400\t800\t400\t+100.0%\tlines");
      // each run's own sections follow, their ids apart
      assertThat(drawn.has("a-windows-devnull")).isTrue();
      assertThat(drawn.has("b-windows-devnull")).isTrue();
      assertThat(browser.errors()).as("console errors").isEmpty();
    }
  }

  private Path constantRunFile(String name, int rate) throws Exception {
    Path config = dir.resolve(name + ".yaml");
    Files.writeString(config, String.join("\n",
        "name: " + name,
        "dataset: {kind: app-json, lines: " + 2 * rate + "}",
        "schedule: {kind: constant, rate: " + rate + "}",
        "timestamps: now",
        "window: 1s",
        "zone: UTC",
        "parallelism: 1",
        "batch: {lines: 50}",
        "backends:",
        "  - {kind: discard, name: devnull}",
        ""));
    return config;
  }

  /** Waits for the page to draw every chart it has, and returns its record of what it drew. */
  private static JsonNode awaitCharts(HeadlessChromium browser) throws Exception {
    browser.awaitValue("document.body.dataset.rendered", Duration.ofSeconds(30));
    int expected = browser.evaluate("Number(document.body.dataset.chartsExpected)").asInt();
    assertThat(expected).isPositive();
    String charts = browser.awaitValue("(() => { const c = document.body.dataset.charts;"
        + " return c && Object.keys(JSON.parse(c)).length === " + expected + " ? c : null; })()",
        Duration.ofSeconds(30)).asText();
    return JSON.readTree(charts);
  }

  private static long points(JsonNode series, String label) {
    assertThat(series.has(label)).as("series " + label + " in " + series).isTrue();
    return series.path(label).path("points").asLong();
  }

  private Set<Long> lokiLostIds() throws Exception {
    Set<Long> stored = new TreeSet<>();
    for (LokiEmulator.Entry e : loki.entries()) {
      stored.add(JSON.readTree(e.line()).get("seq").asLong());
    }
    return LongStream.range(0, LINES).boxed().filter(s -> !stored.contains(s))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** What the charts must hold, read from the run directory's files by this test itself. */
  private record Expected(Map<String, List<LedgerEntry>> ledger, List<String[]> verdicts, List<String[]> summary) {

    static Expected of(Path run) throws Exception {
      Map<String, List<LedgerEntry>> ledger = new HashMap<>();
      LedgerFiles.read(run).forEach(e -> ledger.computeIfAbsent(e.backend(), b -> new ArrayList<>()).add(e));
      // the detail column, last, may be quoted and hold commas: the first seven fields are plain
      List<String[]> verdicts = Files.readAllLines(run.resolve("verdicts.csv")).stream().skip(1)
          .map(l -> l.split(",", 8)).toList();
      List<String[]> summary = Files.readAllLines(run.resolve("summary.csv")).stream().skip(1)
          .map(l -> l.split(",")).toList();
      return new Expected(ledger, verdicts, summary);
    }

    long windows(String backend) {
      return ledger.get(backend).size();
    }

    long observed(String backend) {
      return verdicts.stream().filter(v -> v[0].equals(backend) && Long.parseLong(v[6]) >= 0).count();
    }

    long status(String backend, String status) {
      return verdicts.stream().filter(v -> v[0].equals(backend) && v[3].equals(status)).count();
    }

    long notAcked(String backend) {
      return ledger.get(backend).stream().filter(e -> e.expected() > e.acked()).count();
    }

    /** p50, p95, p99 and max above 0 ms (a log scale draws no zero). */
    long positiveLatencies(String backend) {
      String[] row = summary.stream().filter(s -> s[0].equals(backend)).findFirst().orElseThrow();
      long n = 0;
      for (int i = 6; i <= 9; i++) {
        n += Double.parseDouble(row[i]) > 0 ? 1 : 0;
      }
      return n;
    }
  }
}
