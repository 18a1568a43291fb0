package io.logbench.sink.loki;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigNode;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Footprint;
import io.logbench.sink.RunContext;
import io.logbench.sink.Specs;
import io.logbench.sink.emulator.WindowedPush;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Loki's stored size read after a flush of the ingesters, against the LokiEmulator, which (as
 * Loki 3.4.6 does) counts a line's bytes as stored only once a flush has written its chunk.
 */
class LokiFootprintTest {

  private static final long MINUTE = 60_000L;
  private final LokiEmulator loki = new LokiEmulator().authEnabled(true);
  private final WindowedPush data = new WindowedPush(MAY_2021_MILLIS, 20, 20 * 120, MAY_2021_MILLIS, MINUTE, 2);

  @AfterEach
  void stop() {
    loki.close();
  }

  private LokiBackend backend(String tenant, Duration flushTimeout) {
    return new LokiBackend("loki", URI.create(loki.url()), LokiBackend.Format.PROTOBUF, tenant, Map.of(), null,
        Duration.ofSeconds(5), Duration.ofSeconds(5), LokiBackend.RunIdMode.STRUCTURED_METADATA, null, flushTimeout);
  }

  /** Lines 10 minutes after {@link #data}'s, in the same streams. */
  private final WindowedPush later = new WindowedPush(MAY_2021_MILLIS + 10 * MINUTE, 20, 20 * 60, MAY_2021_MILLIS,
      MINUTE, 11);

  private long push(String tenant) {
    return push(tenant, data);
  }

  private long push(String tenant, WindowedPush lines) {
    try (BatchSender sender = backend(tenant, null).open(RunContext.of(lines.dataset().streams()))) {
      lines.sendAll(sender);
    }
    return loki.entries().stream().filter(e -> e.tenant().equals(tenant))
        .mapToLong(e -> e.line().getBytes(StandardCharsets.UTF_8).length).sum();
  }

  private Footprint footprint(LokiBackend b) throws Exception {
    return b.footprint(RunContext.of(data.dataset().streams())).orElseThrow();
  }

  @Test
  void flushesFirstThenReadsTheTenantsStoredBytes() throws Exception {
    long bytes = push("team-a");
    push("team-b");
    Footprint f = footprint(backend("team-a", Duration.ofSeconds(30)));
    assertThat(loki.forcedFlushes()).isPositive();
    assertThat(f.bytes()).isEqualTo(bytes);
    assertThat(f.complete()).isTrue();
    assertThat(f.source()).isEqualTo("Loki loki_ingester_chunk_stored_bytes_total{tenant=\"team-a\"} from /metrics:"
        + " chunks written to the store, every run of the tenant, since the ingesters started, read after a flush"
        + " of every chunk in memory");
  }

  @Test
  void waitsForAFlushThatTakesTime() throws Exception {
    long bytes = push("team-a");
    loki.flushTakes(Duration.ofSeconds(2));
    long t0 = System.nanoTime();
    Footprint f = footprint(backend("team-a", Duration.ofSeconds(30)));
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(f.bytes()).isEqualTo(bytes);
    assertThat(f.complete()).isTrue();
  }

  @Test
  void aFlushThatDoesNotFinishGivesAPartialFigureThatSaysSo() throws Exception {
    long first = push("team-a");
    footprint(backend("team-a", Duration.ofSeconds(30)));
    loki.flushStalls(true);
    push("team-a", later);
    Footprint f = footprint(backend("team-a", Duration.ofSeconds(1)));
    assertThat(f.complete()).isFalse();
    // what the first flush wrote; the later lines are still in memory
    assertThat(f.bytes()).isEqualTo(first);
    assertThat(f.source()).contains("; the flush (POST /flush) had not finished after 1s (flush_timeout): ",
        " flush operations or chunks pending, ", " chunks in the ingesters' memory, left out");
  }

  @Test
  void withoutAFlushTheFigureIsPartialAndCountsTheChunksInMemory() throws Exception {
    push("team-a");
    Footprint first = footprint(backend("team-a", Duration.ofSeconds(30)));
    push("team-a", later);
    long flushes = loki.forcedFlushes();
    Footprint f = footprint(backend("team-a", Duration.ZERO));
    assertThat(loki.forcedFlushes()).isEqualTo(flushes);
    assertThat(f.bytes()).isEqualTo(first.bytes());
    assertThat(f.complete()).isFalse();
    assertThat(f.source()).endsWith("; flush: false, so only chunks the ingesters flushed on their own are in it; 5"
        + " chunks were still in their memory");
  }

  @Test
  void theFlushKeys() throws Exception {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    LokiBackend defaults = Specs.parse(LokiBackend.TYPE, new ConfigNode(yaml.readTree("kind: loki\nurl: http://h\n"),
        "backends[0]"));
    assertThat(defaults.flushTimeout()).isEqualTo(Duration.ofMinutes(2));
    LokiBackend off = Specs.parse(LokiBackend.TYPE, new ConfigNode(yaml.readTree(
        "kind: loki\nurl: http://h\nflush: false\n"), "backends[0]"));
    assertThat(off.flushTimeout()).isZero();
    LokiBackend longer = Specs.parse(LokiBackend.TYPE, new ConfigNode(yaml.readTree(
        "kind: loki\nurl: http://h\nflush_timeout: 10m\n"), "backends[0]"));
    assertThat(longer.flushTimeout()).isEqualTo(Duration.ofMinutes(10));
    assertThatThrownBy(() -> Specs.parse(LokiBackend.TYPE, new ConfigNode(yaml.readTree(
        "kind: loki\nurl: http://h\nflush: maybe\n"), "backends[0]")))
        .hasMessage("backends[0].flush: \"maybe\" is not valid; expected one of true, false.");
    assertThatThrownBy(() -> Specs.parse(LokiBackend.TYPE, new ConfigNode(yaml.readTree(
        "kind: loki\nurl: http://h\nflush: false\nflush_timeout: 1m\n"), "backends[0]")))
        .hasMessage("backends[0].flush_timeout: \"1m\" is not valid; expected no flush_timeout with flush: false"
            + " (nothing is flushed, so nothing is waited for).");
    assertThatThrownBy(() -> Specs.parse(LokiBackend.TYPE, new ConfigNode(yaml.readTree(
        "kind: loki\nurl: http://h\nflush_timeout: 0s\n"), "backends[0]")))
        .hasMessageStartingWith("backends[0].flush_timeout: ");
  }
}
