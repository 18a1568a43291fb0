package io.logbench.sink.kafka;

import io.logbench.schemas.LogRecord;
import io.logbench.sink.kafka.internal.StreamKeys;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes a {@link LogRecord} the way {@link KafkaSender} writes a line: key = its labels rendered
 * as {@code {name="value",...}}, value = Avro binary, timestamp = the line's millisecond.
 */
public final class LogRecordSerializationSchema implements KafkaRecordSerializationSchema<LogRecord> {

  private static final long serialVersionUID = 1L;

  private final String topic;
  private transient SpecificDatumWriter<LogRecord> writer;
  private transient ByteArrayOutputStream out;
  private transient BinaryEncoder encoder;
  private transient Map<Map<String, String>, byte[]> keys;

  public LogRecordSerializationSchema(String topic) {
    this.topic = topic;
  }

  @Override
  public ProducerRecord<byte[], byte[]> serialize(LogRecord record, KafkaSinkContext context, Long timestamp) {
    if (writer == null) {
      writer = new SpecificDatumWriter<>(LogRecord.getClassSchema());
      out = new ByteArrayOutputStream(256);
      keys = new HashMap<>();
    }
    out.reset();
    encoder = EncoderFactory.get().directBinaryEncoder(out, encoder);
    try {
      writer.write(record, encoder);
    } catch (IOException e) {
      throw new IllegalStateException("Record " + record.getSeq() + " cannot be written as Avro.", e);
    }
    byte[] key = keys.computeIfAbsent(record.getLabels(), StreamKeys::render);
    return new ProducerRecord<>(topic, null, record.getTimestampMillis(), key, out.toByteArray());
  }
}
