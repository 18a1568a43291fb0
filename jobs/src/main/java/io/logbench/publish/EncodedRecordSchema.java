package io.logbench.publish;

import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Hands an {@link EncodedRecord} to the Kafka sink as it is: partition, timestamp, key and value. */
public final class EncodedRecordSchema implements KafkaRecordSerializationSchema<EncodedRecord> {

  private static final long serialVersionUID = 1L;

  private final String topic;

  public EncodedRecordSchema(String topic) {
    this.topic = topic;
  }

  @Override
  public ProducerRecord<byte[], byte[]> serialize(EncodedRecord r, KafkaSinkContext context, Long timestamp) {
    return new ProducerRecord<>(topic, r.partition, r.timestamp, r.key, r.value);
  }
}
