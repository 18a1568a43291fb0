package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.WindowGrid;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@link KafkaCounter} counts back exactly the lines written, per window, on the real broker. */
class KafkaCounterITCase {

  @Test
  void countsPerWindowEqualTheLinesWritten() throws Exception {
    String topic = "counter-windows";
    KafkaTestBroker.get().createTopic(topic, 3);
    KafkaBackend backend =
        KafkaBackend.builder().bootstrap(KafkaTestBroker.get().bootstrap()).topic(topic).build();
    int lines = 1_234;
    try (KafkaSender sender = backend.open(RunContext.of(KafkaTestData.CATALOG))) {
      for (int first = 0; first < lines; first += 100) {
        SendResult r = sender.send(KafkaTestData.batch(first / 100, first, Math.min(100, lines - first))).get();
        assertThat(r.kind()).isEqualTo(SendResult.Kind.ACCEPTED);
      }
    }
    // 1 s windows hold 100 lines each (a line every 10 ms), anchored 250 ms before the data
    WindowGrid grid = new WindowGrid(KafkaTestData.START_MILLIS - 250, 1_000);
    SortedMap<Long, Long> expected = new TreeMap<>();
    SortedMap<Long, List<Long>> expectedSeqs = new TreeMap<>();
    for (long seq = 0; seq < lines; seq++) {
      long w = grid.windowStart(KafkaTestData.millis(seq));
      expected.merge(w, 1L, Long::sum);
      expectedSeqs.computeIfAbsent(w, x -> new ArrayList<>()).add(seq);
    }
    KafkaCounter counter = KafkaCounter.of(backend, Duration.ofSeconds(60), null);
    assertThat(counter.countPerWindow(grid)).isEqualTo(expected);
    assertThat(expected.get(KafkaTestData.START_MILLIS + 750)).isEqualTo(100);

    long second = expected.firstKey() + 1_000;
    SortedMap<Long, List<Long>> drill = counter.seqsPerWindow(grid, second, second + 2_000);
    assertThat(drill.keySet()).containsExactly(second, second + 1_000);
    for (Long w : drill.keySet()) {
      assertThat(drill.get(w)).containsExactlyInAnyOrderElementsOf(expectedSeqs.get(w));
    }
  }

  @Test
  void aMissingTopicIsNamed() {
    KafkaCounter counter =
        KafkaCounter.of(
            KafkaBackend.builder()
                .bootstrap(KafkaTestBroker.get().bootstrap())
                .topic("counter-no-such-topic")
                .build(),
            Duration.ofSeconds(5), null);
    assertThatThrownBy(() -> counter.countPerWindow(new WindowGrid(0, 1_000)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("The topic counter-no-such-topic does not exist or has no partitions.");
  }
}
