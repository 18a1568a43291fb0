package io.logbench.sink.splunk;

import static io.logbench.query.NginxLines.assertSameCells;
import static io.logbench.query.NginxLines.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigNode;
import io.logbench.query.KeyedAnswer;
import io.logbench.query.KeyedQuery;
import io.logbench.query.NginxLines;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.Specs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SplunkSearch against the HEC emulator (not Splunk): its tstats search, spans, runs and parsing. */
class SplunkSearchTest {

  private static final String TOKEN = "11111111-2222-3333-4444-555555555555";
  private static final long HOUR = 3_600_000L;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final SplunkHecEmulator hec = SplunkHecEmulator.start(TOKEN).searchCredentials("searcher", "pw");
  private final NginxLines lines = new NginxLines("2021-05-01T00:59:50-03:00", 4_000);
  private SplunkBackend spec;

  @BeforeEach
  void push() throws IOException {
    Files.writeString(dir.resolve("token"), TOKEN);
    Files.writeString(dir.resolve("pw"), "pw");
    spec = Specs.parse(SplunkBackend.TYPE, new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(
        "kind: splunk\nurl: " + hec.url() + "\ntoken_file: " + dir.resolve("token") + "\nindex: logbench\n"
            + "search_url: " + hec.url() + "\nsearch_user: searcher\nsearch_password_file: " + dir.resolve("pw")
            + "\n"), "backends[0]"));
    for (String id : new String[] {"run-0", "run-1"}) {
      try (BatchSender sender = spec.open(lines.run(id))) {
        lines.sendAll(sender);
      }
    }
    assertThat(hec.events()).hasSize(8_000);
  }

  @AfterEach
  void stop() {
    hec.close();
  }

  @Test
  void countsByStatusAndPathOfTheRunOnlyWithTstatsByTimeAndKey() throws IOException {
    RunContext run = lines.run("run-1");
    try (SplunkSearch search = spec.openSearch(run)) {
      for (String key : new String[] {"status", "path"}) {
        KeyedQuery hours = query(key, "2021-05-01T00:00:00-03:00", "2021-05-01T02:00:00-03:00", HOUR);
        KeyedAnswer answer = search.search(hours);
        assertSameCells(answer, lines.expected(hours));
        assertThat(answer.total()).isEqualTo(4_000);
        KeyedQuery halves = query(key, "2021-05-01T00:59:30-03:00", "2021-05-01T01:01:00-03:00", 30_000);
        assertSameCells(search.search(halves), lines.expected(halves));
      }
      // hours from 00:20 -03:00: spans of 20 minutes, added up per hour
      KeyedQuery off = query("status", "2021-05-01T00:20:00-03:00", "2021-05-01T02:20:00-03:00", HOUR);
      assertThat(search.text(off)).isEqualTo(
          "| tstats count where index=logbench logbench_run=run-1 by _time, status span=1200s");
      assertSameCells(search.search(off), lines.expected(off));
    }
    assertThat(hec.searchTexts()).contains(
        "| tstats count where index=logbench logbench_run=run-1 by _time, path span=30s");
  }

  @Test
  void aRowOutsideTheSpansAskedForIsRefused() throws IOException {
    KeyedQuery q = query("status", "2021-05-01T00:00:00-03:00", "2021-05-01T02:00:00-03:00", HOUR);
    try (SplunkSearch search = spec.openSearch(lines.run("run-1"))) {
      List<JsonNode> bad = List.of(JSON.readTree(
          "{\"_time\":\"2021-05-01T03:30:00.000+00:00\",\"status\":\"200\",\"count\":\"4\"}"));
      assertThatThrownBy(() -> search.read(bad, q, 3600, 0, 2, "the test", new KeyedAnswer(q)))
          .isInstanceOf(IOException.class).hasMessageContaining("is not a 3600 s span");
      KeyedAnswer a = new KeyedAnswer(q);
      search.read(List.of(JSON.readTree("{\"_time\":\"2021-05-01T04:00:00.000+00:00\",\"status\":\"500\","
          + "\"count\":\"7\"}")), q, 3600, 0, 2, "the test", a);
      assertThat(a.count(1, "500")).isEqualTo(7);
    }
  }
}
