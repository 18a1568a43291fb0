package io.logbench.source;

import io.logbench.testing.LoopbackMiniCluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.job.FlinkEnvironments;
import io.logbench.schedule.Schedule;
import io.logbench.schedule.TimestampMode;
import io.logbench.schedule.Timelines;
import io.logbench.schedule.UnpacedSchedule;
import io.logbench.schedule.Timeline;
import io.logbench.pacing.WallClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Runs {@link DatasetSource} on a MiniCluster: determinism, pacing and recovery. */
class DatasetSourceITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      LoopbackMiniCluster.extension(4);

  /** What the recording map saw, in the order it saw it; shared because operators are copies. */
  private static final ConcurrentLinkedQueue<Emission> EMISSIONS = new ConcurrentLinkedQueue<>();

  /** Pre-barrier batch ids per checkpoint id, over all subtasks. */
  private static final Map<Long, Set<Long>> SEEN_AT_BARRIER = new ConcurrentHashMap<>();

  /** Batches the checkpoint that armed the failure covered; no restore may emit them again. */
  private static final AtomicReference<Set<Long>> COVERED_BY_CHECKPOINT =
      new AtomicReference<>(Set.of());

  private static final AtomicBoolean ARMED = new AtomicBoolean();
  private static final AtomicBoolean FAILED = new AtomicBoolean();

  @BeforeEach
  void reset() {
    EMISSIONS.clear();
    SEEN_AT_BARRIER.clear();
    COVERED_BY_CHECKPOINT.set(Set.of());
    ARMED.set(false);
    FAILED.set(false);
  }

  @Test
  void outputIsTheSameAtEveryParallelismAndEqualsTheDataset() throws Exception {
    Dataset dataset = new TestDataset(2_000);
    long firstIndex = 137;
    Schedule schedule = ConstantRateSchedule.unpaced(1_500);
    Timeline timeline = new OriginalTimeline(dataset, firstIndex, schedule.lines());
    int batchSize = 64;
    Map<Long, String> expected = expected(dataset, firstIndex, schedule.lines(), batchSize);
    assertThat(expected).hasSize(24);

    for (int parallelism : new int[] {1, 2, 4}) {
      EMISSIONS.clear();
      DatasetSource source =
          DatasetSource.builder()
              .dataset(dataset)
              .firstIndex(firstIndex)
              .schedule(schedule)
              .timeline(timeline)
              .batchSize(batchSize)
              .build();
      run(source, parallelism, new Recorder());

      assertThat(EMISSIONS).as("emissions at parallelism %d", parallelism).hasSize(24);
      assertThat(byBatch(EMISSIONS))
          .as("batches at parallelism %d", parallelism)
          .isEqualTo(expected);
    }
  }

  @Test
  void seed004LinesAreTheSameAtEveryParallelism() throws Exception {
    // the Mersenne Twister cursor of python-compatible nginx-month, skipping other stripes' lines
    Dataset dataset = new NginxMonthDataset(8, NginxMonthDataset.Mode.PYTHON_COMPATIBLE);
    long firstIndex = ((NginxMonthDataset) dataset).linesBefore(20_000) - 33;
    Schedule schedule = new UnpacedSchedule(5_000);
    Timeline timeline = Timelines.of(TimestampMode.ORIGINAL, dataset, firstIndex, schedule);
    Map<Long, String> expected = expected(dataset, firstIndex, schedule.lines(), 100);
    for (int parallelism : new int[] {1, 3}) {
      EMISSIONS.clear();
      DatasetSource source =
          DatasetSource.builder()
              .dataset(dataset)
              .firstIndex(firstIndex)
              .schedule(schedule)
              .timeline(timeline)
              .batchSize(100)
              .build();
      run(source, parallelism, new Recorder());
      assertThat(byBatch(EMISSIONS)).as("batches at parallelism %d", parallelism).isEqualTo(expected);
    }
  }

  @Test
  void pacedBatchesAreNeverEmittedBeforeTheyAreDue() throws Exception {
    Dataset dataset = new TestDataset(600);
    Schedule schedule = new ConstantRateSchedule(600, 400);
    Timeline timeline = new NowTimeline(schedule);
    int batchSize = 20;
    // Far enough ahead that most batches are still in the future once the job is deployed.
    long runStart = System.currentTimeMillis() + 1_000;
    DatasetSource source =
        DatasetSource.builder()
            .dataset(dataset)
            .schedule(schedule)
            .timeline(timeline)
            .batchSize(batchSize)
            .runStartMillis(runStart)
            .build();

    run(source, 2, new Recorder());

    List<Emission> emissions = new ArrayList<>(EMISSIONS);
    assertThat(emissions).hasSize(30);
    for (Emission e : emissions) {
      long dueNanos = runStart * 1_000_000L + schedule.dueNanos(e.batchId * batchSize);
      assertThat(e.wallNanos)
          .as("emission of batch %d against its due time", e.batchId)
          .isGreaterThanOrEqualTo(dueNanos);
    }
    // Lines carry their due times, so the reader passed the run index and run start through.
    assertThat(byBatch(emissions))
        .isEqualTo(expectedWithTimeline(dataset, 0, schedule.lines(), batchSize, timeline, runStart));
    long lastDue = runStart * 1_000_000L + schedule.dueNanos(29L * batchSize);
    assertThat(emissions.stream().mapToLong(e -> e.wallNanos).max().getAsLong())
        .isGreaterThanOrEqualTo(lastDue);
  }

  @Test
  void restoresFromACheckpointWithoutLosingOrChangingBatches() throws Exception {
    Dataset dataset = new TestDataset(3_000);
    // Three seconds: room for a checkpoint to complete and a failure after it on a busy box.
    Schedule schedule = new ConstantRateSchedule(3_000, 1_000);
    // Timestamps depend on the run start the enumerator picks, so a restore must keep it.
    Timeline timeline = new NowTimeline(schedule);
    int batchSize = 25;
    DatasetSource source =
        DatasetSource.builder()
            .dataset(dataset)
            .schedule(schedule)
            .timeline(timeline)
            .batchSize(batchSize)
            .build();

    // Region failover (the default): only the failed subtask restarts, from its checkpointed
    // split, and the enumerator takes back the splits it assigned after that checkpoint.
    run(source, 2, new FailOnceAfterCheckpoint());

    assertThat(FAILED).as("the job failed once after a checkpoint").isTrue();
    Map<Long, List<String>> all =
        EMISSIONS.stream()
            .collect(
                Collectors.groupingBy(
                    e -> e.batchId,
                    TreeMap::new,
                    Collectors.mapping(e -> e.content, Collectors.toList())));
    long runStart = EMISSIONS.stream().filter(e -> e.batchId == 0).findFirst().get().firstMillis;
    Map<Long, String> expected =
        expectedWithTimeline(dataset, 0, schedule.lines(), batchSize, timeline, runStart);
    assertThat(all.keySet()).isEqualTo(expected.keySet());
    List<Long> reEmitted = new ArrayList<>();
    for (Map.Entry<Long, List<String>> entry : all.entrySet()) {
      assertThat(entry.getValue())
          .as("every emission of batch %d", entry.getKey())
          .containsOnly(expected.get(entry.getKey()));
      if (entry.getValue().size() > 1) {
        reEmitted.add(entry.getKey());
      }
    }
    // A restart from scratch would emit again what the checkpoint already covered.
    Set<Long> covered = COVERED_BY_CHECKPOINT.get();
    assertThat(covered).as("batches behind the checkpoint the failure followed").isNotEmpty();
    assertThat(reEmitted).as("batches emitted again after the restore").isNotEmpty();
    assertThat(reEmitted).doesNotContainAnyElementsOf(covered);
    assertThat(reEmitted.size()).isLessThan(expected.size());
  }

  private static void run(DatasetSource source, int parallelism, MapFunction<LineBatch, Long> map)
      throws Exception {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    env.enableCheckpointing(100);
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "dataset")
        .map(map)
        .sinkTo(new DiscardingSink<>());
    env.execute("dataset-source-it-p" + parallelism);
  }

  private static Map<Long, String> byBatch(Iterable<Emission> emissions) {
    Map<Long, String> out = new TreeMap<>();
    for (Emission e : emissions) {
      out.put(e.batchId, e.content);
    }
    return out;
  }

  /** The batches straight from the dataset, with the dataset's own timestamps. */
  private static Map<Long, String> expected(
      Dataset dataset, long firstIndex, long lines, int batchSize) {
    return expectedWithTimeline(dataset, firstIndex, lines, batchSize, null, 0);
  }

  private static Map<Long, String> expectedWithTimeline(
      Dataset dataset,
      long firstIndex,
      long lines,
      int batchSize,
      Timeline timeline,
      long runStart) {
    Map<Long, String> out = new TreeMap<>();
    LineCursor cursor = dataset.cursor(firstIndex);
    for (long b = 0; b * batchSize < lines; b++) {
      LineBatch batch = new LineBatch();
      batch.reset(b, firstIndex + b * batchSize);
      int n = (int) Math.min(batchSize, lines - b * batchSize);
      for (int k = 0; k < n; k++) {
        cursor.next(batch);
        if (timeline != null) {
          long r = b * batchSize + k;
          batch.setTimestampMillis(k, timeline.lineMillis(r, batch.timestampMillis(k), runStart));
        }
      }
      out.put(b, LineBatchSerializerTest.describe(batch));
    }
    return out;
  }

  /** One batch as the map after the source saw it, and when. */
  private static final class Emission {
    final long batchId;
    final String content;
    final long wallNanos;
    final long firstMillis;

    Emission(LineBatch batch, long wallNanos) {
      this.batchId = batch.batchId();
      this.content = LineBatchSerializerTest.describe(batch);
      this.wallNanos = wallNanos;
      this.firstMillis = batch.count() == 0 ? 0 : batch.timestampMillis(0);
    }
  }

  /** Records every batch with the wall time it arrived (chained, so right after emission). */
  private static class Recorder implements MapFunction<LineBatch, Long> {
    @Override
    public Long map(LineBatch batch) {
      EMISSIONS.add(new Emission(batch, WallClock.epochNanos()));
      return batch.batchId();
    }
  }

  /**
   * Records like {@link Recorder}, and fails the job once: at its next batch after a checkpoint
   * that covered some of its batches has completed.
   */
  private static final class FailOnceAfterCheckpoint extends Recorder
      implements CheckpointListener, CheckpointedFunction {
    private final List<Long> seen = new ArrayList<>();
    private final Map<Long, List<Long>> seenAtBarrier = new HashMap<>();
    private boolean armed;

    @Override
    public Long map(LineBatch batch) {
      Long id = super.map(batch);
      seen.add(id);
      if (armed) {
        armed = false;
        FAILED.set(true);
        throw new IllegalStateException("Failing once after a checkpoint, as the test asks.");
      }
      return id;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      // Chained to the source, so what this map has seen at the barrier is in the checkpoint.
      seenAtBarrier.put(context.getCheckpointId(), List.copyOf(seen));
      SEEN_AT_BARRIER
          .computeIfAbsent(context.getCheckpointId(), k -> ConcurrentHashMap.newKeySet())
          .addAll(seen);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      List<Long> mine = seenAtBarrier.get(checkpointId);
      if (mine != null && !mine.isEmpty() && ARMED.compareAndSet(false, true)) {
        COVERED_BY_CHECKPOINT.set(Set.copyOf(SEEN_AT_BARRIER.get(checkpointId)));
        armed = true;
      }
    }
  }
}
