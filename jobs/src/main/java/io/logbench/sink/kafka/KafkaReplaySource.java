package io.logbench.sink.kafka;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.schemas.LogRecord;
import io.logbench.source.LineBatchTypeInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.formats.avro.AvroDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;

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
 *
 * <p>A topic may hold several runs: given the generating run's id, only records whose header
 * {@code logbench-run} is that id are replayed (without one, every record is, and lines of two
 * runs with the same sequence ids would be taken for one another).
 */
public final class KafkaReplaySource {

  private KafkaReplaySource() {}

  /** A bounded source of the records of run {@code runId} (all for null) {@code backend}'s topic holds now. */
  public static KafkaSource<LogRecord> source(KafkaBackend backend, String groupId, String runId) {
    return source(backend.bootstrap(), backend.topic(), backend.clientProperties(), groupId, runId);
  }

  /**
   * A bounded source of the records of run {@code runId} (all for null) {@code topic} holds now;
   * {@code properties} as for any client.
   */
  public static KafkaSource<LogRecord> source(
      String bootstrap, String topic, Properties properties, String groupId, String runId) {
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
        .setDeserializer(new RunRecords(runId))
        .build();
  }

  /** Avro {@link LogRecord} values of the records of one run (by their run header), or of all. */
  static final class RunRecords implements KafkaRecordDeserializationSchema<LogRecord> {

    private static final long serialVersionUID = 1L;

    private final String runId;
    private final DeserializationSchema<LogRecord> values = AvroDeserializationSchema.forSpecific(LogRecord.class);
    private transient byte[] id;

    RunRecords(String runId) {
      this.runId = runId;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) throws Exception {
      values.open(context);
      id = runId == null ? null : runId.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<LogRecord> out) throws IOException {
      if (KafkaBackend.ofRun(record, id)) {
        out.collect(values.deserialize(record.value()));
      }
    }

    @Override
    public TypeInformation<LogRecord> getProducedType() {
      return values.getProducedType();
    }
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

  /** The source and the re-batching together, of run {@code runId}'s records (all for null). */
  public static DataStream<LineBatch> replay(
      StreamExecutionEnvironment env,
      KafkaBackend backend,
      String groupId,
      StreamCatalog streams,
      long originSeq,
      int batchSize,
      String runId) {
    DataStream<LogRecord> records =
        env.fromSource(source(backend, groupId, runId), WatermarkStrategy.noWatermarks(), backend.name() + " replay");
    return batches(records, streams, originSeq, batchSize);
  }
}
