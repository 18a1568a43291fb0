package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.schemas.LogRecord;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.WindowGrid;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** {@link KafkaSender} against the real in-JVM broker. */
class KafkaSenderITCase {

  private static KafkaBackend backend(String topic) {
    return KafkaBackend.builder().bootstrap(KafkaTestBroker.get().bootstrap()).topic(topic).build();
  }

  @Test
  void aBatchLandsAsExactlyItsRecords() throws Exception {
    KafkaTestBroker.get().createTopic("sender-exact", 3);
    LineBatch batch = KafkaTestData.batch(4, 200, 50);
    SendResult result;
    try (KafkaSender sender = backend("sender-exact").open(RunContext.of(KafkaTestData.CATALOG))) {
      result = sender.send(batch).get();
    }
    assertThat(result.kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    assertThat(result.accepted()).isEqualTo(50);

    List<ConsumerRecord<byte[], byte[]>> records = TopicReader.readAll("sender-exact", "read_committed");
    assertThat(records).hasSize(50);
    Map<String, Integer> partitionOfKey = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      LogRecord v = TopicReader.decode(r.value());
      long seq = v.getSeq();
      String key = new String(r.key(), StandardCharsets.UTF_8);
      assertThat(key).isEqualTo("{app=\"logbench\",stream=\"s" + (seq % 3) + "\"}");
      assertThat(r.timestamp()).isEqualTo(KafkaTestData.millis(seq));
      assertThat(v.getTimestampMillis()).isEqualTo(KafkaTestData.millis(seq));
      assertThat(v.getTimestampNanos()).isEqualTo(LineBatch.distinctNanos(KafkaTestData.millis(seq), seq));
      assertThat(v.getLabels()).isEqualTo(KafkaTestData.CATALOG.labels((int) (seq % 3)));
      assertThat(v.getLine()).isEqualTo(KafkaTestData.line(seq));
      // one stream, one partition
      assertThat(partitionOfKey.computeIfAbsent(key, k -> r.partition())).as(key).isEqualTo(r.partition());
    }
    assertThat(records.stream().map(r -> TopicReader.decode(r.value()).getSeq()).sorted().toList())
        .isEqualTo(LongStream.range(200, 250).boxed().toList());
  }

  @Test
  void aResentBatchIsAcceptedAndCountedTwice() throws Exception {
    KafkaTestBroker.get().createTopic("sender-resend", 2);
    LineBatch batch = KafkaTestData.batch(0, 0, 20);
    try (KafkaSender sender = backend("sender-resend").open(RunContext.of(KafkaTestData.CATALOG))) {
      assertThat(sender.send(batch).get().kind()).isEqualTo(SendResult.Kind.ACCEPTED);
      assertThat(sender.send(batch).get().kind()).isEqualTo(SendResult.Kind.ACCEPTED);
      // the sender goes on working after the resend
      assertThat(sender.send(KafkaTestData.batch(1, 20, 20)).get().kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    }
    KafkaCounter counter = KafkaCounter.of(backend("sender-resend"), Duration.ofSeconds(60), null);
    WindowGrid grid = new WindowGrid(KafkaTestData.START_MILLIS, 100);
    SortedMap<Long, List<Long>> seqs = counter.seqsPerWindow(grid, Long.MIN_VALUE, Long.MAX_VALUE);
    for (long seq = 0; seq < 40; seq++) {
      List<Long> window = seqs.get(grid.windowStart(KafkaTestData.millis(seq)));
      assertThat(Collections.frequency(window, seq)).as("copies of line %d", seq).isEqualTo(seq < 20 ? 2 : 1);
    }
    assertThat(counter.countPerWindow(grid).values().stream().mapToLong(Long::longValue).sum()).isEqualTo(60);
  }

  @Test
  void aRecordOverTheSizeLimitIsRejectedByClassAndTheOthersLand() throws Exception {
    KafkaTestBroker.get().createTopic("sender-too-large", 1);
    LineBatch batch = KafkaTestData.batch(0, 0, 3);
    byte[] big = "x".repeat(5_000).getBytes(StandardCharsets.UTF_8);
    batch.append(big, 0, big.length, KafkaTestData.millis(3), 0);
    KafkaBackend b =
        KafkaBackend.builder()
            .bootstrap(KafkaTestBroker.get().bootstrap())
            .topic("sender-too-large")
            .property("max.request.size", "2000")
            .build();
    SendResult result;
    try (KafkaSender sender = b.open(RunContext.of(KafkaTestData.CATALOG))) {
      result = sender.send(batch).get();
    }
    assertThat(result.kind()).isEqualTo(SendResult.Kind.PARTIAL);
    assertThat(result.accepted()).isEqualTo(3);
    assertThat(result.rejections()).singleElement().satisfies(r -> {
      assertThat(r.reason()).isEqualTo("RecordTooLargeException");
      assertThat(r.lines().stream().boxed().toList()).containsExactly(3);
    });
    assertThat(TopicReader.readAll("sender-too-large", "read_committed")).hasSize(3);
  }

  @Test
  void aMissingTopicIsRetryable() throws Exception {
    KafkaBackend b =
        KafkaBackend.builder()
            .bootstrap(KafkaTestBroker.get().bootstrap())
            .topic("sender-no-such-topic")
            .property("max.block.ms", "500")
            .build();
    SendResult result;
    try (KafkaSender sender = b.open(RunContext.of(KafkaTestData.CATALOG))) {
      result = sender.send(KafkaTestData.batch(0, 0, 2)).get();
    }
    assertThat(result.kind()).isEqualTo(SendResult.Kind.RETRYABLE);
    assertThat(result.retry().cardinality()).isEqualTo(2);
    assertThat(result.detail()).startsWith("TimeoutException: Topic sender-no-such-topic not present in metadata");
  }
}
