package io.logbench.publish;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.schedule.Timeline;
import io.logbench.source.LineBatchTypeInfo;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * A run's batches read back from a published topic, in place of a generated run's source: the
 * Kafka connector's {@code KafkaSource} (partitions spread over the readers, offsets in
 * checkpoints) bounded by the manifest's offsets, its readers paced by the run's schedule ({@link
 * PacedReplayReader}), then the lines put back into the run's batches ({@link ReplayBatcher}).
 *
 * <p>It joins no consumer group and commits no offset (its offsets live in the job's
 * checkpoints), so any number of runs can replay one topic at once without seeing each other.
 */
public final class Replay {

  private Replay() {}

  /**
   * The batches of a run over {@code topic}'s lines.
   *
   * @param name the pipeline's name (the backend's), for operator names and uids
   * @param pacing the run's batches and schedule, from a fixed run start
   * @param lines lines the run sends (the manifest's, or fewer when the schedule ends first)
   * @param timeline the timestamps the run's lines carry
   * @param streams the dataset's streams (record keys are their labels)
   * @param parallelism readers and batchers
   */
  public static DataStream<LineBatch> batches(StreamExecutionEnvironment env, PublishedTopic topic, String name,
      Pacing pacing, long lines, Timeline timeline, StreamCatalog streams, int parallelism) {
    Manifest m = topic.manifest();
    if (pacing.schedule().lines() != lines || timeline.lines() != lines) {
      throw new IllegalArgumentException("The schedule and timeline of a replay must cover its " + lines + " lines.");
    }
    if (pacing.firstSeq() != m.firstIndex() || lines > m.lines()) {
      throw new IllegalArgumentException("A replay of lines [" + pacing.firstSeq() + ", " + (pacing.firstSeq() + lines)
          + ") is not within topic " + topic.topic() + "'s lines [" + m.firstIndex() + ", "
          + (m.firstIndex() + m.lines()) + ").");
    }
    Properties p = topic.kafka().clientProperties();
    p.remove(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
    // no group: nothing is committed, and runs reading one topic at once stay independent
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.putIfAbsent("client.id.prefix", "logbench-replay-" + name);
    // small chunks per partition (about 450 nginx lines, not 1 MB's 7,000), so the partitions'
    // lines come interleaved finely and the paced reader's queues stay short
    p.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(64 * 1024));
    KafkaSource<ReplayLine> kafka = KafkaSource.<ReplayLine>builder()
        .setBootstrapServers(topic.kafka().bootstrap())
        .setTopics(topic.topic())
        .setProperties(p)
        .setStartingOffsets(OffsetsInitializer.offsets(m.startOffsets()))
        .setBounded(OffsetsInitializer.offsets(m.endOffsets()))
        .setDeserializer(new ReplayLineDeserializer(topic.topic(), streams, pacing.firstSeq(),
            pacing.firstSeq() + lines))
        .build();
    return env.fromSource(new PacedReplaySource(kafka, pacing, topic.topic()), WatermarkStrategy.noWatermarks(),
            "replay[" + name + "] " + topic.topic())
        .uid("replay-source-" + name)
        .setParallelism(parallelism)
        .keyBy(new BatchOf(pacing))
        .process(new ReplayBatcher(topic.topic(), pacing, timeline))
        .returns(LineBatchTypeInfo.INSTANCE)
        .uid("replay-batches-" + name)
        .name("replay batches[" + name + "]")
        .setParallelism(parallelism);
  }

  /** The batch id of a line: the key that brings a batch's lines together. */
  private static final class BatchOf implements KeySelector<ReplayLine, Long> {
    private static final long serialVersionUID = 1L;
    private final Pacing pacing;

    BatchOf(Pacing pacing) {
      this.pacing = pacing;
    }

    @Override
    public Long getKey(ReplayLine line) {
      return pacing.batchOf(line.seq);
    }
  }
}
