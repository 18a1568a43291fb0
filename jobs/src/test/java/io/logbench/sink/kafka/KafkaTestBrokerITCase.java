package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The test broker's retention checks come every second, and a topic from {@link
 * KafkaTestBroker#createTopic} keeps May 2021 records through them while a topic on the broker's
 * default retention loses them: the reason a count test once read an empty topic.
 */
class KafkaTestBrokerITCase {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void aCreatedTopicKeepsMay2021RecordsThatTheDefaultRetentionDeletes() throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.get();
    broker.createTopic("retention-kept", 1);
    try (Admin admin = broker.admin()) {
      admin.createTopics(List.of(new NewTopic("retention-default", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrap());
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (String topic : List.of("retention-kept", "retention-default")) {
        producer.send(new ProducerRecord<>(topic, 0, KafkaTestData.START_MILLIS, null, new byte[] {1}))
            .get(30, TimeUnit.SECONDS);
      }
    }
    TopicPartition kept = new TopicPartition("retention-kept", 0);
    TopicPartition deleted = new TopicPartition("retention-default", 0);
    try (Admin admin = broker.admin()) {
      long until = System.nanoTime() + WAIT.toNanos();
      // a retention check has run since the write once the default topic's record is gone
      while (earliest(admin, deleted) < 1) {
        assertThat(System.nanoTime()).as("the default topic's May 2021 record deleted within " + WAIT).isLessThan(until);
        Thread.sleep(100); // polling a condition, not waiting instead of one
      }
      assertThat(earliest(admin, kept)).isZero();
      assertThat(latest(admin, kept)).isEqualTo(1);
    }
  }

  private static long earliest(Admin admin, TopicPartition tp) throws Exception {
    return admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
  }

  private static long latest(Admin admin, TopicPartition tp) throws Exception {
    return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
  }
}
