package io.logbench.sink.kafka;

import io.logbench.schemas.LogRecord;
import io.logbench.sink.WindowGrid;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Counts a topic's records back per window, for verification: reads every partition from the
 * beginning to the end offsets found at the start of the count (committed records only, with
 * {@code read_committed}), and files each record under the window of its record timestamp (the
 * line's time), so counting needs no decoding. With a run id, only records whose header {@code
 * logbench-run} is the run's id count (others are skipped without decoding). {@link #seqsPerWindow}
 * decodes values to list the sequence ids, for drill-down.
 */
public final class KafkaCounter {

  private final Properties properties;
  private final String topic;
  private final Duration deadline;
  /** The run's id as the header holds it, or null to count every record. */
  private final byte[] runId;

  /**
   * @param properties client properties (bootstrap servers and security), e.g. {@link
   *     KafkaBackend#clientProperties()}
   * @param deadline how long one pass may take before it fails
   * @param runId count only records of this run (header {@code logbench-run}); null for all
   */
  public KafkaCounter(Properties properties, String topic, Duration deadline, String runId) {
    this.properties = properties;
    this.topic = topic;
    this.deadline = deadline;
    this.runId = runId == null ? null : runId.getBytes(StandardCharsets.UTF_8);
  }

  /** A counter of the records of run {@code runId} (every record for null) in {@code backend}'s topic. */
  public static KafkaCounter of(KafkaBackend backend, Duration deadline, String runId) {
    return new KafkaCounter(backend.clientProperties(), backend.topic(), deadline, runId);
  }

  /** Records per window start, for windows holding at least one record. */
  public SortedMap<Long, Long> countPerWindow(WindowGrid grid) {
    SortedMap<Long, Long> counts = new TreeMap<>();
    scan(r -> counts.merge(grid.windowStart(r.timestamp()), 1L, Long::sum));
    return counts;
  }

  /**
   * Sequence ids per window start, in topic order within a partition (a duplicate shows twice),
   * for windows starting in {@code [fromMillis, toMillis)}.
   */
  public SortedMap<Long, List<Long>> seqsPerWindow(WindowGrid grid, long fromMillis, long toMillis) {
    SortedMap<Long, List<Long>> seqs = new TreeMap<>();
    SpecificDatumReader<LogRecord> reader = new SpecificDatumReader<>(LogRecord.class);
    BinaryDecoder[] decoder = new BinaryDecoder[1];
    LogRecord[] reuse = new LogRecord[1];
    scan(
        r -> {
          long window = grid.windowStart(r.timestamp());
          if (window < fromMillis || window >= toMillis) {
            return;
          }
          decoder[0] = DecoderFactory.get().binaryDecoder(r.value(), decoder[0]);
          try {
            reuse[0] = reader.read(reuse[0], decoder[0]);
          } catch (IOException e) {
            throw new IllegalStateException(
                "The record at offset " + r.offset() + " of " + r.topic() + "-" + r.partition()
                    + " is not an Avro LogRecord.", e);
          }
          seqs.computeIfAbsent(window, w -> new ArrayList<>()).add(reuse[0].getSeq());
        });
    return seqs;
  }

  /**
   * Hands every committed record of the run (every record without a run id) up to the end
   * offsets found now to {@code each}, partition by partition.
   *
   * @throws IllegalStateException when the topic does not exist or the pass misses its deadline
   */
  public void scan(Consumer<ConsumerRecord<byte[], byte[]>> each) {
    Properties p = new Properties();
    p.putAll(properties);
    p.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    long until = System.nanoTime() + deadline.toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> partitions = new ArrayList<>();
      List<PartitionInfo> infos = consumer.partitionsFor(topic, deadline);
      if (infos == null || infos.isEmpty()) {
        throw new IllegalStateException("The topic " + topic + " does not exist or has no partitions.");
      }
      for (PartitionInfo info : infos) {
        partitions.add(new TopicPartition(topic, info.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      // With read_committed these are the last stable offsets: open transactions are not waited for.
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, deadline);
      while (!reached(consumer, end)) {
        if (System.nanoTime() > until) {
          throw new IllegalStateException(
              "Counting " + topic + " did not reach the end offsets " + end + " within " + deadline + ".");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition())) && KafkaBackend.ofRun(r, runId)) {
            each.accept(r);
          }
        }
      }
    }
  }

  private static boolean reached(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
