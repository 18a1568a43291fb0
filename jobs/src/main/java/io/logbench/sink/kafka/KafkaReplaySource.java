package io.logbench.sink.kafka;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.schemas.LogRecord;
import io.logbench.source.LineBatchTypeInfo;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.formats.avro.AvroDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * Replays a topic written earlier (by {@link KafkaSender} or the exactly-once sink) as a Flink
 * source: {@link #source} reads {@link LogRecord}s from the earliest offsets up to the end offsets
 * found when the job starts (committed records only), and {@link #batches} groups them back into
 * {@link LineBatch}es.
 *
 * <p>Batch ids of a replay are derived, not read: line {@code seq} belongs to batch {@code (seq -
 * originSeq) / batchSize}, whose first line is {@code originSeq + batchId * batchSize}. With the
 * generating run's first index and batch size, the replayed batches are the original ones, on
 * every run and at every parallelism, so the ledger stays idempotent. Records of a batch arrive
 * from several partitions (a topic is keyed by stream), so they are collected per batch id and
 * emitted in sequence order once the batch is complete, or when the bounded input ends. A batch
 * with missing lines (never written, or lost) is emitted as runs of consecutive lines, each run a
 * batch of its own with the same batch id; a line present twice in the topic is replayed once.
 */
public final class KafkaReplaySource {

  private KafkaReplaySource() {}

  /** A bounded source of the records {@code backend}'s topic holds now. */
  public static KafkaSource<LogRecord> source(KafkaBackend backend, String groupId) {
    return source(backend.bootstrap(), backend.topic(), backend.clientProperties(), groupId);
  }

  /** A bounded source of the records {@code topic} holds now; {@code properties} as for any client. */
  public static KafkaSource<LogRecord> source(
      String bootstrap, String topic, Properties properties, String groupId) {
    Properties p = new Properties();
    p.putAll(properties);
    p.remove(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
    p.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return KafkaSource.<LogRecord>builder()
        .setBootstrapServers(bootstrap)
        .setTopics(topic)
        .setGroupId(groupId)
        .setProperties(p)
        .setStartingOffsets(OffsetsInitializer.earliest())
        .setBounded(OffsetsInitializer.latest())
        .setValueOnlyDeserializer(AvroDeserializationSchema.forSpecific(LogRecord.class))
        .build();
  }

  /**
   * Re-batches replayed records: batch ids and first lines as described on this class; stream ids
   * found back from the labels through {@code streams}.
   */
  public static DataStream<LineBatch> batches(
      DataStream<LogRecord> records, StreamCatalog streams, long originSeq, int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("The replay batch size must be at least 1, not " + batchSize + ".");
    }
    return records
        .keyBy(r -> Math.floorDiv(r.getSeq() - originSeq, (long) batchSize))
        .process(new ReplayBatcher(streams, batchSize))
        .returns(LineBatchTypeInfo.INSTANCE)
        .name("replay batches");
  }

  /** The source and the re-batching together. */
  public static DataStream<LineBatch> replay(
      StreamExecutionEnvironment env,
      KafkaBackend backend,
      String groupId,
      StreamCatalog streams,
      long originSeq,
      int batchSize) {
    DataStream<LogRecord> records =
        env.fromSource(source(backend, groupId), WatermarkStrategy.noWatermarks(), backend.name() + " replay");
    return batches(records, streams, originSeq, batchSize);
  }
}
