package io.logbench.sink.victorialogs;

import static io.logbench.query.NginxLines.assertSameCells;
import static io.logbench.query.NginxLines.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** VictoriaLogsSearch against the VictoriaLogs emulator: its LogsQL, buckets off the epoch grid, runs, parsing. */
class VictoriaLogsSearchTest {

  private static final long HOUR = 3_600_000L;

  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().retention(Duration.ofDays(36_500));
  private final NginxLines lines = new NginxLines("2021-05-01T00:59:50-03:00", 4_000);
  private VictoriaLogsBackend spec;

  @BeforeEach
  void push() throws IOException {
    spec = Specs.parse(VictoriaLogsBackend.TYPE, new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(
        "kind: victorialogs\nurl: " + vl.url() + "\nretention: 36500d\n"), "backends[0]"));
    // the same lines twice, by two runs: each run's search sees its own
    for (String id : new String[] {"run-0", "run-1"}) {
      try (BatchSender sender = spec.open(lines.run(id))) {
        lines.sendAll(sender);
      }
    }
    assertThat(vl.rowsStored()).isEqualTo(8_000);
  }

  @AfterEach
  void stop() {
    vl.close();
  }

  @Test
  void countsByStatusAndPathOfTheRunOnlyWithStatsByTimeAndKey() throws IOException {
    RunContext run = lines.run("run-1");
    try (VictoriaLogsSearch search = spec.openSearch(run)) {
      for (String key : new String[] {"status", "path"}) {
        KeyedQuery hours = query(key, "2021-05-01T00:00:00-03:00", "2021-05-01T02:00:00-03:00", HOUR);
        KeyedAnswer answer = search.search(hours);
        assertSameCells(answer, lines.expected(hours));
        assertThat(answer.total()).isEqualTo(4_000);
        KeyedQuery halves = query(key, "2021-05-01T00:59:30-03:00", "2021-05-01T01:01:00-03:00", 30_000);
        assertSameCells(search.search(halves), lines.expected(halves));
      }
    }
    assertThat(vl.lastSelectParams().get("query")).isEqualTo("{job=\"nginx\"} logbench_run:=\"run-1\""
        + " _time:[2021-05-01T03:59:30Z, 2021-05-01T04:01:00Z) | stats by (_time:30s, path) count() hits");
  }

  @Test
  void bucketsOffTheEpochGridAddUpEpochAlignedSteps() throws IOException {
    // hours from 00:20 -03:00: 20-minute steps, three to an hour, whatever the server does with offset
    KeyedQuery q = query("status", "2021-05-01T00:20:00-03:00", "2021-05-01T02:20:00-03:00", HOUR);
    try (VictoriaLogsSearch search = spec.openSearch(lines.run("run-1"))) {
      assertThat(search.text(q)).endsWith("| stats by (_time:20m, status) count() hits");
      assertSameCells(search.search(q), lines.expected(q));
    }
  }

  @Test
  void aRowAtATimeThatStartsNoStepIsRefusedAndAMissingFieldIsTheEmptyValue() throws IOException {
    KeyedQuery q = query("status", "2021-05-01T00:00:00-03:00", "2021-05-01T02:00:00-03:00", HOUR);
    try (VictoriaLogsSearch search = spec.openSearch(lines.run("run-1"))) {
      byte[] bad = "{\"_time\":\"2021-05-01T03:30:00Z\",\"status\":\"200\",\"hits\":\"4\"}\n"
          .getBytes(StandardCharsets.UTF_8);
      assertThatThrownBy(() -> search.read(bad, q, HOUR, 0, 2, "the test", new KeyedAnswer(q)))
          .isInstanceOf(IOException.class).hasMessageContaining("starts none of the 1h steps");
      KeyedAnswer a = new KeyedAnswer(q);
      search.read(("{\"_time\":\"2021-05-01T04:00:00Z\",\"status\":\"404\",\"hits\":\"4\"}\n"
          + "{\"_time\":\"2021-05-01T04:00:00Z\",\"hits\":\"2\"}\n").getBytes(StandardCharsets.UTF_8),
          q, HOUR, 0, 2, "the test", a);
      assertThat(a.count(1, "404")).isEqualTo(4);
      assertThat(a.count(1, "")).isEqualTo(2);
    }
  }
}
