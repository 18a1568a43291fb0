package io.logbench.sink.kafka;

import io.logbench.schemas.LogRecord;
import io.logbench.sink.kafka.internal.StreamKeys;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Writes a {@link LogRecord} the way {@link KafkaSender} writes a line: key = its labels rendered
 * as {@code {name="value",...}}, value = Avro binary, timestamp = the line's millisecond, header
 * {@code logbench-run} = the run's id (when the run has one).
 */
public final class LogRecordSerializationSchema implements KafkaRecordSerializationSchema<LogRecord> {

  private static final long serialVersionUID = 1L;

  private final String topic;
  private final String runId;
  private transient List<Header> headers;
  private transient SpecificDatumWriter<LogRecord> writer;
  private transient ByteArrayOutputStream out;
  private transient BinaryEncoder encoder;
  private transient Map<Map<String, String>, byte[]> keys;

  /** Records to {@code topic}, each with the header {@code logbench-run} = {@code runId} (none when null). */
  public LogRecordSerializationSchema(String topic, String runId) {
    this.topic = topic;
    this.runId = runId;
  }

  @Override
  public ProducerRecord<byte[], byte[]> serialize(LogRecord record, KafkaSinkContext context, Long timestamp) {
    if (writer == null) {
      writer = new SpecificDatumWriter<>(LogRecord.getClassSchema());
      out = new ByteArrayOutputStream(256);
      keys = new HashMap<>();
      headers = KafkaBackend.runHeaders(runId);
    }
    out.reset();
    encoder = EncoderFactory.get().directBinaryEncoder(out, encoder);
    try {
      writer.write(record, encoder);
    } catch (IOException e) {
      throw new IllegalStateException("Record " + record.getSeq() + " cannot be written as Avro.", e);
    }
    byte[] key = keys.computeIfAbsent(record.getLabels(), StreamKeys::render);
    return new ProducerRecord<>(topic, null, record.getTimestampMillis(), key, out.toByteArray(), headers);
  }
}
