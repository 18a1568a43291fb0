package io.logbench.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.cli.Main;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunPlan;
import io.logbench.sink.kafka.KafkaTestBroker;
import io.logbench.source.LineBatchTypeInfo;
import io.logbench.testing.LoopbackMiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A replay that fails after a checkpoint and restores from it, on a MiniCluster against a real
 * Kafka: the paced readers hold thousands of lines read ahead when checkpoints are taken, and the
 * restored job still makes every batch of the run once, each exactly as a generated run makes it.
 */
class ReplayFailoverITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(2);

  static final AtomicBoolean ARMED = new AtomicBoolean();
  static final AtomicBoolean FAILED = new AtomicBoolean();
  static final java.util.concurrent.atomic.AtomicLong SEEN = new java.util.concurrent.atomic.AtomicLong();

  @Test
  void aRestoredReplayMakesEveryBatchOnceAndExactly() throws Exception {
    String bootstrap = KafkaTestBroker.get().bootstrap();
    java.nio.file.Path source = java.nio.file.Files.createTempFile("failover-source", ".yaml");
    java.nio.file.Files.writeString(source, "dataset:\n  kind: app-json\n  lines: 20000\n  streams: 7\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"publish", source.toString(), "--bootstrap", bootstrap, "--topic",
        "replay-failover", "--partitions", "3"}, System.out, new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as("publish; stderr:%n%s", err).isZero();

    // 10,000 lines/s in 50-line batches: two seconds, with checkpoints every 200 ms
    RunPlan plan = RunPlan.of(ConfigLoader.parse("dataset:\n  kind: kafka\n  bootstrap: " + bootstrap
        + "\n  topic: replay-failover\nschedule:\n  kind: constant\n  rate: 10000\ntimestamps: now\nbatch:\n"
        + "  lines: 50\n", "failover"));
    long runStart = System.currentTimeMillis() + 2_000;
    Pacing pacing = new Pacing(plan.firstIndex(), 50, plan.schedule(), runStart);

    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.enableCheckpointing(200);
    Map<Long, List<String>> got = new TreeMap<>();
    int emitted = 0;
    try (CloseableIterator<LineBatch> it = Replay.batches(env, plan.published(), "failover", pacing, plan.lines(),
            plan.timeline(), plan.dataset().streams(), 2)
        .map(new FailOnceAfterCheckpoint())
        .returns(LineBatchTypeInfo.INSTANCE)
        .executeAndCollect("replay failover")) {
      while (it.hasNext()) {
        LineBatch b = it.next();
        emitted++;
        assertThat(got.put(b.batchId(), describe(b))).as("batch %d once", b.batchId()).isNull();
      }
    }
    assertThat(FAILED).as("the job failed once after a checkpoint").isTrue();
    assertThat(emitted).isEqualTo(400);

    // what a generated run of the same plan sends: its lines, streams, and timestamps on the timeline
    LineCursor cursor = plan.dataset().cursor(plan.firstIndex());
    for (long b = 0; b < 400; b++) {
      LineBatch expected = new LineBatch(50, 16 * 1024);
      expected.reset(b, b * 50);
      for (int k = 0; k < 50; k++) {
        cursor.next(expected);
        expected.setTimestampMillis(k, plan.timeline().lineMillis(b * 50 + k, expected.timestampMillis(k), runStart));
      }
      assertThat(got.get(b)).as("batch %d", b).isEqualTo(describe(expected));
    }
  }

  static List<String> describe(LineBatch b) {
    List<String> lines = new ArrayList<>();
    lines.add(b.batchId() + "/" + b.firstSeq() + "/" + b.count());
    for (int k = 0; k < b.count(); k++) {
      lines.add(b.seq(k) + " " + b.timestampMillis(k) + " " + b.stream(k) + " " + b.lineAsString(k));
    }
    return lines;
  }

  /** Throws once, on the first batch after a checkpoint completed once 100 batches went through. */
  static final class FailOnceAfterCheckpoint implements MapFunction<LineBatch, LineBatch>, CheckpointListener {
    private static final long serialVersionUID = 1L;

    @Override
    public LineBatch map(LineBatch batch) {
      SEEN.incrementAndGet();
      if (ARMED.get() && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("Failing once after a checkpoint, on batch " + batch.batchId() + ".");
      }
      return batch;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      // mid-run: the readers then hold lines read ahead, and some batches are out
      if (SEEN.get() >= 100) {
        ARMED.set(true);
      }
    }
  }
}
