package io.logbench.sink.kafka;

import io.logbench.schemas.LogRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a whole topic (to its end offsets at the start) for assertions. */
final class TopicReader {

  private TopicReader() {}

  static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, String isolation) {
    Properties p = new Properties();
    p.put("bootstrap.servers", KafkaTestBroker.get().bootstrap());
    p.put("isolation.level", isolation);
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts =
          c.partitionsFor(topic).stream().map(i -> new TopicPartition(topic, i.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Reading " + topic + " did not reach " + end + " within 60 s.");
        }
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  static LogRecord decode(byte[] value) {
    try {
      return new SpecificDatumReader<>(LogRecord.class)
          .read(null, DecoderFactory.get().binaryDecoder(value, null));
    } catch (IOException e) {
      throw new IllegalStateException("Not an Avro LogRecord.", e);
    }
  }
}
