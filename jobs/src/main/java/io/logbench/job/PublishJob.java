package io.logbench.job;

import io.logbench.dataset.Dataset;
import io.logbench.plan.RunPlan;
import io.logbench.publish.EncodedRecord;
import io.logbench.publish.EncodedRecordSchema;
import io.logbench.publish.PublishRecords;
import io.logbench.schedule.Schedule;
import io.logbench.schedule.Timeline;
import io.logbench.schedule.Timelines;
import io.logbench.schedule.TimestampMode;
import io.logbench.schedule.UnpacedSchedule;
import io.logbench.sink.kafka.KafkaBackend;
import io.logbench.sink.kafka.KafkaConnection;
import io.logbench.source.DatasetSource;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The {@code publish} job: writes a run file's dataset (lines {@code [firstIndex, firstIndex +
 * datasetLines)}, with their own times) to a topic as Avro {@code LogRecord}s keyed by stream,
 * through Flink's transactional {@link KafkaSink} (exactly once: records become visible when the
 * checkpoint covering them completes, and the job's end commits the rest).
 *
 * <p>Writer {@code w} of {@code W} is its own pipeline of parallelism 1: a {@link DatasetSource}
 * of every line in order, the records of the partitions it owns ({@link PublishRecords}), and a
 * sink with its own transactional id prefix. Each partition so gets its lines in sequence order,
 * which a replay relies on to pace it. Every writer makes every line and keeps its share: making a
 * line costs about 50 ns, writing it to Kafka far more.
 */
public final class PublishJob {

  /** Lines per batch a writer makes at once (batches do not show in the topic). */
  static final int BATCH_LINES = 1000;

  /** How often the job checkpoints, each checkpoint committing one transaction per writer. */
  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(1);

  private final RunPlan plan;
  private final KafkaConnection kafka;
  private final String topic;
  private final int partitions;
  private final int writers;
  private final String transactionalIdPrefix;
  private Duration checkpointInterval = DEFAULT_CHECKPOINT_INTERVAL;

  /**
   * @param writers parallel writers, 1 to {@code partitions}
   * @param transactionalIdPrefix prefix of the writers' transactional ids ({@code -w<N>} is added)
   */
  public PublishJob(RunPlan plan, KafkaConnection kafka, String topic, int partitions, int writers,
      String transactionalIdPrefix) {
    if (writers < 1 || writers > partitions) {
      throw new IllegalArgumentException("A publish job has 1 to " + partitions + " writers (one partition at"
          + " least each), not " + writers + ".");
    }
    this.plan = plan;
    this.kafka = kafka;
    this.topic = topic;
    this.partitions = partitions;
    this.writers = writers;
    this.transactionalIdPrefix = transactionalIdPrefix;
  }

  public PublishJob checkpointInterval(Duration interval) {
    this.checkpointInterval = interval;
    return this;
  }

  /** Wires the writers into {@code env}. */
  public void build(StreamExecutionEnvironment env) {
    env.enableCheckpointing(checkpointInterval.toMillis());
    // records go from the flat map to the chained sink as they are; nothing holds on to them
    env.getConfig().enableObjectReuse();
    Dataset dataset = plan.dataset();
    long first = plan.firstIndex();
    Schedule schedule = new UnpacedSchedule(plan.datasetLines());
    Timeline timeline = Timelines.of(TimestampMode.ORIGINAL, dataset, first, schedule);
    for (int w = 0; w < writers; w++) {
      DatasetSource lines = DatasetSource.builder()
          .dataset(dataset)
          .firstIndex(first)
          .schedule(schedule)
          .timeline(timeline)
          .batchSize(BATCH_LINES)
          .stripes(1)
          .build();
      env.fromSource(lines, WatermarkStrategy.noWatermarks(), "lines[w" + w + "]")
          .uid("publish-lines-w" + w)
          .setParallelism(1)
          .flatMap(new PublishRecords(dataset.streams(), partitions, writers, w))
          .returns(TypeInformation.of(EncodedRecord.class))
          .uid("publish-records-w" + w)
          .name("records[w" + w + "]")
          .setParallelism(1)
          .sinkTo(sink(w))
          .uid("publish-sink-w" + w)
          .name("kafka " + topic + " [w" + w + "]")
          .setParallelism(1);
    }
  }

  private KafkaSink<EncodedRecord> sink(int writer) {
    Properties p = kafka.clientProperties();
    p.remove(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    // as the exactly-once backend: a timeout the broker's default maximum (15 minutes) accepts
    p.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
        String.valueOf(KafkaBackend.DEFAULT_TRANSACTION_TIMEOUT_MS));
    // bigger batches than the default 16 KB: the lines are written in bulk, not under a schedule
    p.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
    p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "20");
    return KafkaSink.<EncodedRecord>builder()
        .setBootstrapServers(kafka.bootstrap())
        .setKafkaProducerConfig(p)
        .setRecordSerializer(new EncodedRecordSchema(topic))
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(transactionalIdPrefix + "-w" + writer)
        .build();
  }

  /**
   * Builds the job, runs it on {@code env} and calls {@code progress} about every {@code every}
   * while it runs (the caller reads how far the writers have come); returns when the job has
   * finished, its transactions committed.
   */
  public void run(StreamExecutionEnvironment env, Duration every, Consumer<Duration> progress) throws Exception {
    build(env);
    JobClient client = env.executeAsync("logbench publish " + plan.config().name() + " to " + topic);
    long t0 = System.nanoTime();
    var result = client.getJobExecutionResult();
    while (true) {
      try {
        result.get(every.toMillis(), TimeUnit.MILLISECONDS);
        return;
      } catch (TimeoutException e) {
        progress.accept(Duration.ofNanos(System.nanoTime() - t0));
      }
    }
  }
}
