package io.logbench.sink.loki;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.Specs;
import io.logbench.sink.emulator.WindowedPush;
import java.io.IOException;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Runs never mix in Loki (against the LokiEmulator): the run's id as structured metadata of every
 * entry (JSON and protobuf) or as a stream label ({@code run_id}), counts and the drill-down
 * filtered by it, and what Loki's deduplication does to a run that repeats another's lines.
 */
class LokiRunsTest {

  private static final long MINUTE = 60_000L;
  private final LokiEmulator loki = new LokiEmulator();
  private final WindowedPush data =
      new WindowedPush(MAY_2021_MILLIS + 17_000, 40, 283 * 40, MAY_2021_MILLIS, MINUTE, 5);
  /** The same number of lines 1 ms later: other timestamps, so never duplicates of {@link #data}. */
  private final WindowedPush shifted =
      new WindowedPush(MAY_2021_MILLIS + 17_001, 40, 283 * 40, MAY_2021_MILLIS, MINUTE, 5);

  @AfterEach
  void stop() {
    loki.close();
  }

  private LokiBackend backend(String format, String runId) {
    ObjectNode n = new ObjectMapper().createObjectNode();
    n.put("kind", "loki").put("url", loki.url()).put("format", format).put("timeout", "5s");
    if (runId != null) {
      n.put("run_id", runId);
    }
    return Specs.parse(LokiBackend.TYPE, new ConfigNode(n, "backends[0]"));
  }

  private RunContext run(WindowedPush push, String id) {
    return RunContext.of(push.dataset().streams()).withRunId(id);
  }

  private static void push(LokiBackend spec, RunContext run, WindowedPush push, int windows) {
    try (BatchSender sender = spec.open(run)) {
      for (int k = 0; k < windows; k++) {
        WindowedPush.sendAccepted(sender, push.batch(k));
      }
    }
  }

  private long[] counts(LokiBackend spec, RunContext run) throws IOException {
    try (LokiCountReader reader = spec.openCounter(run)) {
      return reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 5 * MINUTE, MINUTE);
    }
  }

  @Test
  void theRunIdIsStructuredMetadataOfEveryEntryInJsonAndProtobufAndTheStreamsStayTheDatasets() {
    // the second push has other timestamps: the same lines again would be dropped as duplicates
    for (WindowedPush push : List.of(data, shifted)) {
      String format = push == data ? "json" : "protobuf";
      push(backend(format, null), run(push, "run-" + format), push, 1);
      LokiEmulator.Push last = loki.lastPush();
      assertThat(last.streams()).hasSize(5).allSatisfy(s -> {
        assertThat(s.labels()).doesNotContain("logbench_run");
        assertThat(s.metadata()).hasSize(s.lines().size())
            .containsOnly(Map.of("logbench_run", "run-" + format));
      });
    }
    assertThat(loki.entries()).hasSize((int) (data.expected()[0] + shifted.expected()[0]));
    assertThat(loki.entries()).filteredOn(e -> e.metadata().equals(Map.of("logbench_run", "run-json")))
        .hasSize((int) data.expected()[0]);
  }

  @Test
  void withTheRunIdAsALabelEveryStreamOfTheRunIsItsOwn() {
    push(backend("protobuf", "label"), run(data, "run-a"), data, 1);
    assertThat(loki.lastPush().streams()).hasSize(5).allSatisfy(s -> {
      assertThat(LokiEmulator.parseLabels(s.labels())).containsEntry("logbench_run", "run-a");
      assertThat(s.metadata()).containsOnly(Map.of());
    });
  }

  @Test
  void withoutARunIdNothingIsSentAndNothingFiltered() throws IOException {
    LokiBackend none = backend("json", "none");
    push(none, run(data, "run-a"), data, 5);
    assertThat(loki.lastPush().streams()).allSatisfy(s -> assertThat(s.metadata()).containsOnly(Map.of()));
    assertThat(none.capabilities().runFilter()).isFalse();
    push(none, run(shifted, "run-b"), shifted, 5);
    long[] sum = new long[5];
    for (int k = 0; k < 5; k++) {
      sum[k] = data.expected()[k] + shifted.expected()[k];
    }
    assertThat(counts(none, run(data, "run-a"))).containsExactly(sum);
  }

  @Test
  void countsAndTheDrillDownOfStructuredMetadataRunsAreEachRunsOwn() throws IOException {
    LokiBackend spec = backend("protobuf", null);
    push(spec, run(data, "run-a"), data, 5);
    push(spec, run(shifted, "run-b"), shifted, 2);
    assertThat(counts(spec, run(data, "run-a"))).containsExactly(data.expected());
    assertThat(loki.lastQueryParams().get("query"))
        .isEqualTo("sum(count_over_time({namespace=\"loadtest\"} | logbench_run=\"run-a\" [1m]))");
    long[] b = shifted.expected();
    assertThat(counts(spec, run(shifted, "run-b"))).containsExactly(b[0], b[1], 0, 0, 0);
    try (LokiCountReader reader = spec.openCounter(run(data, "run-a"))) {
      assertThat(reader.lines()).isEqualTo("{namespace=\"loadtest\"} | logbench_run=\"run-a\"");
      assertThat(reader.sequenceIds(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, 10_000))
          .containsExactlyInAnyOrderElementsOf(data.ids(0));
    }
  }

  @Test
  void aRunRepeatingAnothersLinesIsDroppedAsDuplicatesWithStructuredMetadataButNotWithALabel() throws IOException {
    LokiBackend metadata = backend("json", null);
    push(metadata, run(data, "run-a"), data, 5);
    long lines = LongStream.of(data.expected()).sum();
    // Loki dedups on stream, timestamp and line: the second run's identical lines are answered 204
    // and dropped, whatever their structured metadata
    push(metadata, run(data, "run-b"), data, 5);
    assertThat(loki.duplicatesDropped()).isEqualTo(lines);
    assertThat(counts(metadata, run(data, "run-b"))).containsOnly(0);
    assertThat(counts(metadata, run(data, "run-a"))).containsExactly(data.expected());

    // as a label the run's streams are its own: a repeated run is stored and counted apart
    LokiBackend label = backend("json", "label");
    push(label, run(data, "run-c"), data, 5);
    push(label, run(data, "run-d"), data, 5);
    assertThat(loki.duplicatesDropped()).isEqualTo(lines);
    assertThat(counts(label, run(data, "run-c"))).containsExactly(data.expected());
    assertThat(counts(label, run(data, "run-d"))).containsExactly(data.expected());
    assertThat(loki.lastQueryParams().get("query"))
        .isEqualTo("sum(count_over_time({namespace=\"loadtest\", logbench_run=\"run-d\"}[1m]))");
  }

  @Test
  void theChecksBeforeARunWarnAboutOtherRunsAndWhatLokiDoesWithRepeatedLines() {
    push(backend("json", null), run(data, "run-a"), data, 5);
    long lines = LongStream.of(data.expected()).sum();
    long[] span = {MAY_2021_MILLIS + 17_000, MAY_2021_MILLIS + 5 * MINUTE};
    // the emulator keeps old samples; the clock is the lines' own time, so no old-sample warning
    long now = span[0];
    String held = "Backend 'loki' already holds " + String.format(java.util.Locale.ROOT, "%,d", lines)
        + " lines in the run's time range from other runs";
    assertThat(backend("json", null).preflight(
            Preflight.of(run(data, "run-b"), span, MINUTE, ZoneOffset.UTC, span[0], now)))
        .containsExactly(held + "; they are not counted as this run's (its lines carry run id run-b and its"
            + " counts filter by it). Loki drops a line identical in stream, timestamp and text to one it"
            + " holds, whatever its structured metadata, so lines of this run that repeat them (same dataset"
            + " and timestamps) are not stored and verify reports them MISSING: use run_id: label, or"
            + " timestamps: compressed or now, to repeat a run.");
    assertThat(backend("json", "label").preflight(
            Preflight.of(run(data, "run-b"), span, MINUTE, ZoneOffset.UTC, span[0], now)))
        .containsExactly(held + "; they are not counted as this run's (its lines carry run id run-b and its"
            + " counts filter by it).");
    assertThat(backend("json", "none").preflight(
            Preflight.of(run(data, "run-b"), span, MINUTE, ZoneOffset.UTC, span[0], now)))
        .containsExactly(held + ", and they WILL be counted as this run's: this backend's counts are not"
            + " filtered by run, so verify reports them as DUPLICATE. Send the run to an empty index, topic or"
            + " directory.");
  }

  @Test
  void aLokiThatDisallowsStructuredMetadataRefusesThePushNamingTheSetting() {
    loki.allowStructuredMetadata(false);
    SendResult r;
    try (BatchSender sender = backend("protobuf", null).open(run(data, "run-a"))) {
      r = sender.send(data.batch(0)).join();
    }
    assertThat(r.kind()).isEqualTo(SendResult.Kind.FATAL);
    assertThat(r.rejections()).singleElement().satisfies(x -> {
      assertThat(x.reason()).isEqualTo("400 structured metadata disallowed");
      assertThat(x.count()).isEqualTo(data.batch(0).count());
    });
    assertThat(r.detail()).startsWith("Loki refuses the run id as structured metadata"
        + " (limits_config.allow_structured_metadata is false, or the schema is older than v13): allow it, or set"
        + " run_id: label or none. stream '{container=\"k6-");
    assertThat(loki.linesStored()).isZero();
    // run_id: label needs no structured metadata
    try (BatchSender sender = backend("protobuf", "label").open(run(data, "run-a"))) {
      WindowedPush.sendAccepted(sender, data.batch(0));
    }
    assertThat(loki.linesStored()).isEqualTo((int) data.expected()[0]);
  }

  @Test
  void runIdIsStructuredMetadataUnlessTheRunFileSaysLabelOrNone() {
    assertThat(backend("json", null).runId()).isEqualTo(LokiBackend.RunIdMode.STRUCTURED_METADATA);
    assertThat(backend("json", "label").runId()).isEqualTo(LokiBackend.RunIdMode.LABEL);
    assertThat(backend("json", "none").runId()).isEqualTo(LokiBackend.RunIdMode.NONE);
    assertThatThrownBy(() -> backend("json", "stream"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("backends[0].run_id")
        .hasMessageContaining("structured_metadata, label, none");
    ObjectNode n = new ObjectMapper().createObjectNode();
    n.put("kind", "loki").put("url", loki.url()).putObject("labels").put("logbench_run", "x");
    assertThatThrownBy(() -> Specs.parse(LokiBackend.TYPE, new ConfigNode(n, "backends[0]")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("logbench_run")
        .hasMessageContaining("which carries the run's id (see run_id)");
  }
}
