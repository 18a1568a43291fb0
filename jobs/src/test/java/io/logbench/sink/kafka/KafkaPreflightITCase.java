package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Instant;
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

  @Test
  void aMissingTopicStopsTheRunWithWhatToDo() {
    String bootstrap = KafkaTestBroker.get().bootstrap();
    assertThatThrownBy(() -> backend("preflight-missing").preflight(MAY_2021))
        .isInstanceOf(IOException.class)
        .hasMessage("Kafka topic preflight-missing does not exist at " + bootstrap
            + "; create it (with retention.ms=-1 for original timestamps) or let the broker create topics.");
  }

  @Test
  void timeRetentionShorterThanTheLinesAgeIsWarnedAbout() throws Exception {
    create("preflight-week", Map.of("retention.ms", "604800000"));
    List<String> warnings = backend("preflight-week").preflight(MAY_2021);
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0))
        .startsWith("Kafka topic preflight-week keeps records for retention.ms=604800000, but the run's oldest line is ")
        .endsWith(" days old: the broker will delete those records at its next retention check."
            + " Set retention.ms=-1 on the topic, or use timestamps now or compressed.");
    // recent lines are fine with the same topic
    assertThat(backend("preflight-week").preflight(System.currentTimeMillis())).isEmpty();
  }

  @Test
  void unlimitedRetentionKeepsOldLines() throws Exception {
    create("preflight-forever", Map.of("retention.ms", "-1"));
    assertThat(backend("preflight-forever").preflight(MAY_2021)).isEmpty();
  }
}
