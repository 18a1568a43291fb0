package io.logbench.sink.kafka;

import io.logbench.dataset.StreamCatalog;
import io.logbench.query.KeyedAnswer;
import io.logbench.query.KeyedQuery;
import io.logbench.query.KeyedSearch;
import io.logbench.schemas.LogRecord;
import io.logbench.sink.kafka.internal.StreamKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;

/**
 * The keyed search of a Kafka topic, which has no search language: one pass over the run's
 * committed records ({@link KafkaCounter#scan}), each filed by its record timestamp (the line's
 * time) into a bucket and by the value of the key's label. The label comes from the record key,
 * which is the stream's labels rendered once per stream ({@code {job="nginx",path="page7",
 * status="200"}}): a key the run's streams render is looked up, never parsed; a record with any
 * other key has its Avro value decoded and its {@code labels} read.
 */
public final class KafkaSearch implements KeyedSearch {

  private final KafkaCounter counter;
  private final String topic;
  private final StreamCatalog streams;
  private final AtomicLong passes = new AtomicLong();

  KafkaSearch(KafkaCounter counter, String topic, StreamCatalog streams) {
    this.counter = counter;
    this.topic = topic;
    this.streams = streams;
  }

  @Override
  public String language() {
    return "scan";
  }

  @Override
  public String text(KeyedQuery q) {
    return "read " + topic + " to its end offsets; count records by timestamp bucket and the record key's "
        + q.key() + " label";
  }

  @Override
  public KeyedAnswer search(KeyedQuery q) throws IOException {
    Map<ByteBuffer, String> byKey = new HashMap<>();
    StreamKeys keys = StreamKeys.of(streams);
    for (int id = 0; id < streams.size(); id++) {
      String v = streams.labels(id).get(q.key());
      byKey.put(ByteBuffer.wrap(keys.key(id)), v == null ? "" : v);
    }
    KeyedAnswer answer = new KeyedAnswer(q);
    SpecificDatumReader<LogRecord> avro = new SpecificDatumReader<>(LogRecord.class);
    BinaryDecoder[] decoder = new BinaryDecoder[1];
    passes.incrementAndGet();
    try {
      counter.scan(r -> {
        int k = q.bucketOf(r.timestamp());
        if (k < 0) {
          return;
        }
        String value = r.key() == null ? null : byKey.get(ByteBuffer.wrap(r.key()));
        answer.add(k, value != null ? value : decoded(r, q.key(), avro, decoder), 1);
      });
    } catch (KafkaException | IllegalStateException e) {
      throw new IOException("Searching the topic " + topic + " failed: " + e.getMessage(), e);
    }
    return answer;
  }

  private static String decoded(ConsumerRecord<byte[], byte[]> r, String key, SpecificDatumReader<LogRecord> avro,
      BinaryDecoder[] decoder) {
    decoder[0] = DecoderFactory.get().binaryDecoder(r.value(), decoder[0]);
    try {
      CharSequence v = avro.read(null, decoder[0]).getLabels().get(key);
      return v == null ? "" : v.toString();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("The record at offset " + r.offset() + " of " + r.topic() + "-" + r.partition()
          + " has a key no stream of the run has and is not an Avro LogRecord.", e);
    }
  }

  @Override
  public long requests() {
    return passes.get();
  }

  @Override
  public void close() {}
}
