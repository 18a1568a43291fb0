package io.logbench.sink.loki;

import static io.logbench.query.NginxLines.assertSameCells;
import static io.logbench.query.NginxLines.millis;
import static io.logbench.query.NginxLines.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.query.KeyedAnswer;
import io.logbench.query.KeyedQuery;
import io.logbench.query.NginxLines;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** LokiSearch against the Loki emulator: the LogQL it sends, its bucket mapping, its splits, its parsing. */
class LokiSearchTest {

  private static final long HOUR = 3_600_000L;
  private static final long HALF_MINUTE = 30_000L;

  private final LokiEmulator loki = new LokiEmulator();
  /** 4,000 lines across 01:00 in Sao Paulo: two hours, three half-minutes. */
  private final NginxLines lines = new NginxLines("2021-05-01T00:59:50-03:00", 4_000);
  private final RunContext run = lines.run("run-1");
  private LokiBackend spec;

  @BeforeEach
  void push() {
    spec = new LokiBackend("loki", URI.create(loki.url()), LokiBackend.Format.PROTOBUF, null, Map.of(), null,
        Duration.ofSeconds(10), Duration.ofSeconds(10));
    try (BatchSender sender = spec.open(run)) {
      lines.sendAll(sender);
    }
    assertThat(loki.linesStored()).isEqualTo(4_000);
  }

  @AfterEach
  void stop() {
    loki.close();
  }

  @Test
  void countsByStatusAndByPathPerHourAndPerHalfMinuteAsTheLinesHaveThem() throws IOException {
    try (LokiSearch search = spec.openSearch(run)) {
      for (String key : new String[] {"status", "path"}) {
        KeyedQuery hours = query(key, "2021-05-01T00:00:00-03:00", "2021-05-01T02:00:00-03:00", HOUR);
        KeyedAnswer answer = search.search(hours);
        assertSameCells(answer, lines.expected(hours));
        assertThat(answer.total()).isEqualTo(4_000);
        assertThat(answer.count(0, key.equals("status") ? "200" : "page0")).isPositive();
        KeyedQuery halves = query(key, "2021-05-01T00:59:30-03:00", "2021-05-01T01:01:00-03:00", HALF_MINUTE);
        assertSameCells(search.search(halves), lines.expected(halves));
      }
      assertThat(search.requests()).isEqualTo(4);
    }
    Map<String, String> p = loki.lastQueryParams();
    assertThat(p.get("query"))
        .isEqualTo("sum by (path) (count_over_time({job=\"nginx\"} | logbench_run=\"run-1\" [30s]))");
    assertThat(p.get("step")).isEqualTo("30s");
    // points at the end of each bucket: each counts (t - 30s, t]
    assertThat(p.get("start")).isEqualTo(millis("2021-05-01T01:00:00-03:00") * 1_000_000L + "");
    assertThat(p.get("end")).isEqualTo(millis("2021-05-01T01:01:00-03:00") * 1_000_000L + "");
  }

  @Test
  void bucketsOffTheStepsGridAreReachedWithAnOffset() throws IOException {
    // hours from 00:30 -03:00 (a half-hour zone's grid): points at the epoch's hours, shifted back
    KeyedQuery q = query("status", "2021-05-01T00:30:00-03:00", "2021-05-01T02:30:00-03:00", HOUR);
    try (LokiSearch search = spec.openSearch(run)) {
      assertThat(search.text(q)).isEqualTo(
          "sum by (status) (count_over_time({job=\"nginx\"} | logbench_run=\"run-1\" [1h] offset 30m))");
      assertSameCells(search.search(q), lines.expected(q));
    }
  }

  @Test
  void moreValuesThanMaxQuerySeriesAreAskedInGroupsOfValues() throws IOException {
    loki.maxQuerySeries(100);
    KeyedQuery q = query("path", "2021-05-01T00:00:00-03:00", "2021-05-01T02:00:00-03:00", HOUR);
    try (LokiSearch whole = new LokiSearch(spec, run)) {
      assertThatThrownBy(() -> whole.search(q)).isInstanceOf(IOException.class)
          .hasMessageContaining("answered 400").hasMessageContaining("maximum of series (100)");
    }
    try (LokiSearch split = new LokiSearch(spec, run, 100)) {
      assertSameCells(split.search(q), lines.expected(q));
      assertThat(split.requests()).isEqualTo(3);
      assertThat(split.text(q)).startsWith("sum by (path) (count_over_time({job=\"nginx\", path=~\"page0|page1|");
    }
  }

  @Test
  void aPointThatEndsNoBucketIsRefused() {
    KeyedQuery q = query("status", "2021-05-01T00:00:00-03:00", "2021-05-01T02:00:00-03:00", HOUR);
    long off = (millis("2021-05-01T01:00:00-03:00") + 1_000) / 1000;
    byte[] body = ("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":"
        + "{\"status\":\"200\"},\"values\":[[" + off + ",\"3\"]]}]}}").getBytes(StandardCharsets.UTF_8);
    try (LokiSearch search = new LokiSearch(spec, run)) {
      assertThatThrownBy(() -> search.read(body, q, 0, 0, 2, "the test", new KeyedAnswer(q)))
          .isInstanceOf(IOException.class).hasMessageContaining("ends none of the buckets");
      KeyedAnswer a = new KeyedAnswer(q);
      byte[] ok = new String(body, StandardCharsets.UTF_8).replace(off + ",", (off - 1) + ",")
          .getBytes(StandardCharsets.UTF_8);
      search.read(ok, q, 0, 0, 2, "the test", a);
      assertThat(a.count(0, "200")).isEqualTo(3);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
