package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/** What `generate` checks of a Kafka backend before it starts, against a real broker. */
class KafkaPreflightITCase {

  static final long MAY_2021 = Instant.parse("2021-05-01T03:00:00Z").toEpochMilli();

  static KafkaBackend backend(String topic) {
    return KafkaBackend.builder().bootstrap(KafkaTestBroker.get().bootstrap()).topic(topic).build();
  }

  static void create(String topic, Map<String, String> configs) throws Exception {
    try (Admin admin = KafkaTestBroker.get().admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(configs))).all().get();
    }
  }

  /** The checks of run {@code runId} whose lines span one second from {@code oldest}. */
  static Preflight before(String runId, long oldest) {
    return Preflight.of(RunContext.of(KafkaTestData.CATALOG).withRunId(runId), new long[] {oldest, oldest + 1_000},
        1_000, ZoneOffset.UTC, oldest, System.currentTimeMillis());
  }

  @Test
  void aMissingTopicStopsTheRunWithWhatToDo() {
    String bootstrap = KafkaTestBroker.get().bootstrap();
    assertThatThrownBy(() -> backend("preflight-missing").preflight(before("r", MAY_2021)))
        .isInstanceOf(IOException.class)
        .hasMessage("Kafka topic preflight-missing does not exist at " + bootstrap
            + "; create it (with retention.ms=-1 for original timestamps) or let the broker create topics.");
  }

  @Test
  void timeRetentionShorterThanTheLinesAgeIsWarnedAbout() throws Exception {
    create("preflight-week", Map.of("retention.ms", "604800000"));
    List<String> warnings = backend("preflight-week").preflight(before("r", MAY_2021));
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0))
        .startsWith("Backend 'kafka': Kafka topic preflight-week keeps records for retention.ms=604800000, but the"
            + " run's oldest line is ")
        .endsWith(" days old: the broker will delete those records at its next retention check."
            + " Set retention.ms=-1 on the topic, or use timestamps now or compressed.");
    // recent lines are fine with the same topic
    assertThat(backend("preflight-week").preflight(before("r", System.currentTimeMillis()))).isEmpty();
  }

  @Test
  void unlimitedRetentionKeepsOldLines() throws Exception {
    create("preflight-forever", Map.of("retention.ms", "-1"));
    assertThat(backend("preflight-forever").preflight(before("r", MAY_2021))).isEmpty();
  }

  @Test
  void recordsOfAnotherRunInTheRunsTimeRangeAreWarnedAboutAndNotCountedAsTheRuns() throws Exception {
    create("preflight-other-run", Map.of("retention.ms", "-1"));
    KafkaBackend backend = backend("preflight-other-run");
    // 100 records one every 10 ms from START_MILLIS: the first second
    try (KafkaSender first = backend.open(RunContext.of(KafkaTestData.CATALOG).withRunId("run-a"))) {
      assertThat(first.send(KafkaTestData.batch(0, 0, 100)).get().kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    }
    long t0 = KafkaTestData.START_MILLIS;
    assertThat(backend.preflight(before("run-b", t0))).containsExactly(
        "Backend 'kafka' already holds 100 lines in the run's time range from other runs; they are not counted"
            + " as this run's (its lines carry run id run-b and its counts filter by it).");
    // a run of another second finds none
    assertThat(backend.preflight(before("run-b", t0 + 5_000))).isEmpty();
    try (var reader = backend.openCounter(RunContext.of(KafkaTestData.CATALOG).withRunId("run-b"))) {
      assertThat(reader.counts(t0, t0 + 1_000, 1_000)).containsExactly(0);
    }
    try (var reader = backend.openCounter(RunContext.of(KafkaTestData.CATALOG).withRunId("run-a"))) {
      assertThat(reader.counts(t0, t0 + 1_000, 1_000)).containsExactly(100);
    }
  }
}
