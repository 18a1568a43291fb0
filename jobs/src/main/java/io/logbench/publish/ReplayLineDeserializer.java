package io.logbench.publish;

import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.kafka.internal.StreamKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads a published record (Avro {@code LogRecord}: seq, timestampMillis, timestampNanos, labels,
 * line) into a {@link ReplayLine} without building a record object: the fields are decoded in
 * schema order through one reused decoder, the labels are skipped and the stream is found from the
 * record key (the stream's labels, rendered once per stream). Lines outside the run's range
 * {@code [firstSeq, endSeq)} (a schedule that stops before the dataset ends) are dropped.
 */
final class ReplayLineDeserializer implements KafkaRecordDeserializationSchema<ReplayLine> {

  private static final long serialVersionUID = 1L;

  private final String topic;
  private final StreamCatalog streams;
  private final long firstSeq;
  private final long endSeq;

  private transient Map<ByteBuffer, Integer> streamOfKey;
  private transient BinaryDecoder decoder;
  private transient ByteBuffer line;

  ReplayLineDeserializer(String topic, StreamCatalog streams, long firstSeq, long endSeq) {
    this.topic = topic;
    this.streams = streams;
    this.firstSeq = firstSeq;
    this.endSeq = endSeq;
  }

  @Override
  public void open(DeserializationSchema.InitializationContext context) {
    streamOfKey = new HashMap<>();
    StreamKeys keys = StreamKeys.of(streams);
    for (int id = 0; id < streams.size(); id++) {
      streamOfKey.put(ByteBuffer.wrap(keys.key(id)), id);
    }
  }

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<ReplayLine> out) throws IOException {
    if (streamOfKey == null) {
      open(null);
    }
    decoder = DecoderFactory.get().binaryDecoder(record.value(), decoder);
    long seq = decoder.readLong();
    if (seq < firstSeq || seq >= endSeq) {
      return;
    }
    long millis = decoder.readLong();
    decoder.readLong(); // nanos: recomputed from the line's time in the run, which may differ
    for (long n = decoder.readMapStart(); n != 0; n = decoder.mapNext()) {
      for (long i = 0; i < n; i++) {
        decoder.skipString();
        decoder.skipString();
      }
    }
    line = decoder.readBytes(line);
    byte[] bytes = new byte[line.remaining()];
    line.get(bytes);
    Integer stream = record.key() == null ? null : streamOfKey.get(ByteBuffer.wrap(record.key()));
    if (stream == null) {
      throw new IllegalStateException("Record " + record.offset() + " of partition " + record.partition()
          + " of topic " + topic + " has key " + (record.key() == null ? "null"
              : new String(record.key(), StandardCharsets.UTF_8))
          + ", which is no stream of the published dataset: the topic holds other records than publish wrote.");
    }
    out.collect(new ReplayLine(seq, millis, stream, bytes, record.partition(), record.offset()));
  }

  @Override
  public TypeInformation<ReplayLine> getProducedType() {
    return TypeInformation.of(ReplayLine.class);
  }
}
