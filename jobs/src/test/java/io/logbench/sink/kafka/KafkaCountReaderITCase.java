package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigNode;
import io.logbench.count.CountReader;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.testing.BoundaryLines;
import io.logbench.sink.Specs;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** {@link KafkaCountReader} on the real in-JVM broker: counts and sequence ids per window. */
class KafkaCountReaderITCase {

  @Test
  void countsAndSequenceIdsPerWindowEqualTheLinesWritten() throws Exception {
    String topic = "count-reader-windows";
    KafkaTestBroker.get().createTopic(topic, 3);
    KafkaBackend backend = KafkaBackend.builder().bootstrap(KafkaTestBroker.get().bootstrap()).topic(topic).build();
    int lines = 1_234;
    try (KafkaSender sender = backend.open(RunContext.of(KafkaTestData.CATALOG))) {
      for (int first = 0; first < lines; first += 100) {
        SendResult r = sender.send(KafkaTestData.batch(first / 100, first, Math.min(100, lines - first))).get();
        assertThat(r.kind()).isEqualTo(SendResult.Kind.ACCEPTED);
      }
    }
    // 1 s windows (100 lines each) anchored 250 ms before the data, two empty windows first
    long from = KafkaTestData.START_MILLIS - 2_250;
    long to = from + 16_000;
    long[] expected = new long[16];
    for (long seq = 0; seq < lines; seq++) {
      expected[(int) ((KafkaTestData.millis(seq) - from) / 1_000)]++;
    }
    try (CountReader reader = backend.openCounter(RunContext.of(KafkaTestData.CATALOG))) {
      long[] counts = reader.counts(from, to, 1_000);
      assertThat(counts).containsExactly(expected);
      assertThat(counts[0]).isZero();
      assertThat(counts[1]).isZero();
      assertThat(counts[3]).isEqualTo(100);
      assertThat(counts[15]).isZero();

      long w = KafkaTestData.START_MILLIS + 750;
      List<Long> expectedSeqs = new ArrayList<>();
      for (long seq = 0; seq < lines; seq++) {
        if (KafkaTestData.millis(seq) >= w && KafkaTestData.millis(seq) < w + 1_000) {
          expectedSeqs.add(seq);
        }
      }
      assertThat(reader.sequenceIds(w, w + 1_000, 1_000)).containsExactlyInAnyOrderElementsOf(expectedSeqs);
      assertThat(reader.sequenceIds(w, w + 1_000, 7)).hasSize(7).isSubsetOf(expectedSeqs);
      assertThat(reader.stats().requests()).isEqualTo(3);
    }
  }

  /**
   * One count is one pass over the topic, bounded by {@code query_timeout}, not by the push
   * {@code timeout}: a pass takes longer than a 50 ms {@code timeout} (a consumer, its metadata,
   * the reading) and still counts; a 1 ms {@code query_timeout} fails it.
   */
  @Test
  void aCountPassHasQueryTimeoutNotThePushTimeout() throws Exception {
    String topic = "count-reader-query-timeout";
    KafkaTestBroker.get().createTopic(topic, 2);
    String common = "kind: kafka\nbootstrap: " + KafkaTestBroker.get().bootstrap() + "\ntopic: " + topic + "\n";
    KafkaBackend patient = Specs.parse(KafkaBackend.TYPE, block(common + "timeout: 50ms\nquery_timeout: 60s\n"));
    assertThat(patient.queryTimeout()).isEqualTo(Duration.ofSeconds(60));
    try (KafkaSender sender = patient.open(RunContext.of(KafkaTestData.CATALOG))) {
      assertThat(sender.send(KafkaTestData.batch(0, 0, 100)).get().kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    }
    long from = KafkaTestData.START_MILLIS - KafkaTestData.START_MILLIS % 60_000;
    try (CountReader reader = patient.openCounter(RunContext.of(KafkaTestData.CATALOG))) {
      assertThat(LongStream.of(reader.counts(from, from + 120_000, 60_000)).sum()).isEqualTo(100);
      assertThat(reader.stats().nanos()).as("the pass took longer than timeout").isGreaterThan(50_000_000L);
    }
    KafkaBackend impatient = Specs.parse(KafkaBackend.TYPE, block(common + "timeout: 60s\nquery_timeout: 1ms\n"));
    try (CountReader reader = impatient.openCounter(RunContext.of(KafkaTestData.CATALOG))) {
      assertThatThrownBy(() -> reader.counts(from, from + 120_000, 60_000))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Counting the Kafka topic " + topic + " failed: ");
    }
  }

  private static ConfigNode block(String yaml) throws IOException {
    return new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(yaml), "backends[0]");
  }

  @Test
  void minutesHoursAndDaysOfSaoPauloCountEveryBoundaryLineInItsWindow() throws Exception {
    String topic = "count-reader-boundaries";
    KafkaTestBroker.get().createTopic(topic, 3);
    KafkaBackend backend = KafkaBackend.builder().bootstrap(KafkaTestBroker.get().bootstrap()).topic(topic).build();
    BoundaryLines lines = new BoundaryLines();
    try (KafkaSender sender = backend.open(RunContext.of(lines.streams()))) {
      SendResult r = sender.send(lines.batch()).get();
      assertThat(r.kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    }
    try (CountReader reader = backend.openCounter(RunContext.of(lines.streams()))) {
      for (Duration size : BoundaryLines.SIZES) {
        assertThat(reader.counts(BoundaryLines.FROM, BoundaryLines.TO, size.toMillis())).as("%s windows", size)
            .containsExactly(lines.expected(size.toMillis()));
      }
    }
  }

  @Test
  void aMissingTopicIsAnIOException() {
    KafkaBackend backend =
        KafkaBackend.builder().bootstrap(KafkaTestBroker.get().bootstrap()).topic("count-reader-no-topic").build();
    try (CountReader reader = KafkaCountReader.of(backend, Duration.ofSeconds(5), null)) {
      assertThatThrownBy(() -> reader.counts(0, 1_000, 1_000))
          .isInstanceOf(IOException.class)
          .hasMessage("Counting the Kafka topic count-reader-no-topic failed:"
              + " The topic count-reader-no-topic does not exist or has no partitions.");
    }
  }

  @Test
  void aStoppedBrokerIsAnIOExceptionNeverCounts() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    KafkaBackend backend = KafkaBackend.builder().bootstrap("127.0.0.1:" + port).topic("t").build();
    try (CountReader reader = KafkaCountReader.of(backend, Duration.ofSeconds(2), null)) {
      assertThatThrownBy(() -> reader.counts(0, 1_000, 1_000))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Counting the Kafka topic t failed: ");
    }
  }
}
