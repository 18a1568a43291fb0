package io.logbench.sink.kafka;

import io.logbench.testing.LoopbackMiniCluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.schedule.ConstantRateSchedule;
import io.logbench.schedule.Schedule;
import io.logbench.schedule.TimestampMode;
import io.logbench.schedule.Timelines;
import io.logbench.sink.RunContext;
import io.logbench.sink.WindowGrid;
import io.logbench.source.DatasetSource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The transactional KafkaSink path on a MiniCluster: {@code read_committed} consumers see every
 * line exactly once, also when the job fails after a checkpoint and restores from it.
 */
class KafkaExactlyOnceSinkITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      LoopbackMiniCluster.extension(2);

  static final AtomicBoolean ARMED = new AtomicBoolean();
  static final AtomicBoolean FAILED = new AtomicBoolean();

  @Test
  void writesEveryLineExactlyOnceAcrossAFailureAndRestore() throws Exception {
    String topic = "eos-restore";
    KafkaTestBroker.get().createTopic(topic, 3);
    int lines = 3_000;
    // Three seconds of lines: room for checkpoints to complete before and after the failure.
    Schedule schedule = new ConstantRateSchedule(1_000, lines);
    KafkaTestData dataset = new KafkaTestData(lines);
    DatasetSource source =
        DatasetSource.builder()
            .dataset(dataset)
            .schedule(schedule)
            .timeline(Timelines.of(TimestampMode.ORIGINAL, dataset, 0, schedule))
            .batchSize(50)
            .build();
    KafkaBackend backend =
        KafkaBackend.builder()
            .name("eos")
            .bootstrap(KafkaTestBroker.get().bootstrap())
            .topic(topic)
            .exactlyOnce(true)
            .transactionalIdPrefix("eos-restore-" + System.nanoTime())
            .build();

    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.enableCheckpointing(200);
    DataStream<LineBatch> batches =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "dataset")
            .map(new FailOnceAfterCheckpoint())
            .returns(io.logbench.source.LineBatchTypeInfo.INSTANCE);
    backend.sinkExactlyOnce(batches, RunContext.of(dataset.streams()).withRunId("eos-run"));
    env.execute("kafka exactly once");

    assertThat(FAILED).as("the job failed once after a checkpoint").isTrue();
    // the transactional path stamps every record with the run's header, as the idempotent one
    assertThat(TopicReader.readAll(topic, "read_committed"))
        .as("committed records carrying the run's header")
        .allSatisfy(r -> assertThat(r.headers().lastHeader(KafkaBackend.RUN_HEADER).value())
            .isEqualTo("eos-run".getBytes(StandardCharsets.UTF_8)));
    KafkaCounter counter = KafkaCounter.of(backend, Duration.ofSeconds(60), "eos-run");
    SortedMap<Long, List<Long>> seqs =
        counter.seqsPerWindow(new WindowGrid(KafkaTestData.START_MILLIS, 1_000), Long.MIN_VALUE, Long.MAX_VALUE);
    Map<Long, Long> copies =
        seqs.values().stream()
            .flatMap(List::stream)
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    assertThat(copies.keySet()).containsExactlyInAnyOrderElementsOf(LongStream.range(0, lines).boxed().toList());
    assertThat(copies.values()).as("copies of each line").containsOnly(1L);
    // read_uncommitted also sees what the failed attempt wrote and aborted
    int uncommitted = TopicReader.readAll(topic, "read_uncommitted").size();
    System.err.println("Exactly-once topic: " + lines + " committed lines, " + uncommitted + " records read_uncommitted.");
    assertThat(uncommitted).isGreaterThanOrEqualTo(lines);
  }

  /** Throws once, on the first batch after a checkpoint completed. */
  static final class FailOnceAfterCheckpoint implements MapFunction<LineBatch, LineBatch>, CheckpointListener {
    private static final long serialVersionUID = 1L;

    @Override
    public LineBatch map(LineBatch batch) {
      if (ARMED.get() && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("Failing once after a checkpoint, on batch " + batch.batchId() + ".");
      }
      return batch;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      ARMED.set(true);
    }
  }
}
