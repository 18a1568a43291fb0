package io.logbench.sink.splunk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigNode;
import io.logbench.count.CountReader;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.Specs;
import io.logbench.sink.emulator.TestBatches;
import io.logbench.sink.internal.FixedStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs never mix in Splunk (against the HEC emulator, not Splunk): every event carries its run's
 * id as the indexed field {@code logbench_run}, and tstats counts, the drill-down search and the
 * pre-flight check filter on it.
 */
class SplunkRunsTest {

  private static final String TOKEN = "11111111-2222-3333-4444-555555555555";
  private static final String PASSWORD = "s3cret-pw";
  private static final long T0 = TestBatches.MAY_2021_MILLIS;
  private static final long MINUTE = 60_000;
  private static final FixedStreams STREAMS =
      new FixedStreams(Map.of("job", "nginx", "status", "200"), Map.of("job", "api", "status", "500"));

  private final SplunkHecEmulator hec = SplunkHecEmulator.start(TOKEN).searchCredentials("counter", PASSWORD);
  @TempDir Path tmp;
  private SplunkBackend backend;

  @BeforeEach
  void backend() throws Exception {
    Path token = tmp.resolve("token");
    Path password = tmp.resolve("password");
    Files.writeString(token, TOKEN + "\n");
    Files.writeString(password, PASSWORD + "\n");
    backend = block("kind: splunk\nurl: " + hec.url() + "\ntoken_file: " + token + "\nindex: logbench\nsearch_url: "
        + hec.url() + "\nsearch_user: counter\nsearch_password_file: " + password + "\n");
  }

  @AfterEach
  void stop() {
    hec.close();
  }

  private static SplunkBackend block(String yaml) throws Exception {
    return Specs.parse(SplunkBackend.TYPE, new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(yaml), "backends[0]"));
  }

  private static RunContext run(String id) {
    return RunContext.of(STREAMS).withRunId(id);
  }

  /** Sends {@code batches} batches of 100 events (one every 700 ms from T0) as run {@code id}. */
  private void send(String id, int batches) throws Exception {
    try (BatchSender sender = backend.open(run(id))) {
      for (int b = 0; b < batches; b++) {
        LineBatch batch = TestBatches.batch(b * 100L, 100, T0 + b * 70_000L, 700, 2);
        SendResult r = sender.send(batch).get(30, TimeUnit.SECONDS);
        assertThat(r.kind()).as(r.detail()).isEqualTo(SendResult.Kind.ACCEPTED);
      }
    }
  }

  private long[] counts(RunContext run) throws Exception {
    try (CountReader reader = backend.openCounter(run)) {
      return reader.counts(T0, T0 + 12 * MINUTE, MINUTE);
    }
  }


  @Test
  void everyEventCarriesItsRunIdAsAnIndexedField() throws Exception {
    send("run-a", 1);
    assertThat(hec.events()).hasSize(100)
        .allSatisfy(e -> assertThat(e.fields()).containsEntry("logbench_run", "run-a").containsKey("seq"));
  }

  @Test
  void twoRunsOverTheSameTimesEachCountAndListOnlyTheirOwnEvents() throws Exception {
    send("run-a", 10);
    send("run-b", 3);
    long[] a = counts(run("run-a"));
    long[] b = counts(run("run-b"));
    long[] all = counts(RunContext.of(STREAMS));
    assertThat(LongStream.of(a).sum()).isEqualTo(1_000);
    assertThat(LongStream.of(b).sum()).isEqualTo(300);
    for (int k = 0; k < a.length; k++) {
      assertThat(all[k]).as("window %d", k).isEqualTo(a[k] + b[k]);
    }
    assertThat(hec.searchTexts()).contains(
        "| tstats count where index=logbench logbench_run=run-a by _time span=60s",
        "| tstats count where index=logbench by _time span=60s");
    try (CountReader reader = backend.openCounter(run("run-b"))) {
      List<Long> ids = reader.sequenceIds(T0, T0 + MINUTE, 1_000);
      // the first minute holds events 0..85 of both runs: only run-b's are listed, each once
      assertThat(ids).containsExactlyInAnyOrderElementsOf(LongStream.range(0, 86).boxed().toList());
    }
    assertThat(hec.searchTexts()).anyMatch(s -> s.startsWith("search index=logbench logbench_run::run-b earliest="));
  }

  @Test
  void theChecksBeforeARunWarnAboutEventsOfOtherRunsAndNeedSearchCredentials() throws Exception {
    send("run-a", 2);
    long[] span = {T0, T0 + 12 * MINUTE};
    Preflight before = Preflight.of(run("run-b"), span, MINUTE, ZoneOffset.UTC, T0, System.currentTimeMillis());
    assertThat(backend.preflight(before)).containsExactly(
        "Backend 'splunk' already holds 200 lines in the run's time range from other runs; they are not counted"
            + " as this run's (its lines carry run id run-b and its counts filter by it).");
    SplunkBackend sendOnly = block("kind: splunk\nurl: " + hec.url() + "\ntoken_env: HEC_TOKEN\nindex: logbench\n");
    assertThat(sendOnly.preflight(before)).isEmpty();
  }
}
