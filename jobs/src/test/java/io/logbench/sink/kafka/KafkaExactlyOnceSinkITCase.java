package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.job.GenerateJob;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunPlan;
import io.logbench.schedule.ConstantRateSchedule;
import io.logbench.schedule.Schedule;
import io.logbench.schedule.TimestampMode;
import io.logbench.schedule.Timelines;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.DeliveryContext;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.RunContext;
import io.logbench.sink.WindowGrid;
import io.logbench.source.DatasetSource;
import io.logbench.testing.LoopbackMiniCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SortedMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once Kafka delivery on a MiniCluster against the in-JVM broker: an outcome says
 * ACKED only once its batch's transaction is committed, so a {@code read_committed} consumer
 * never holds fewer records than the outcomes so far acknowledge; a finished run reports every
 * batch, committed exactly once, also to the ledger of a {@code generate} run; and after a failure
 * and restore every line is committed once and every batch reported.
 */
class KafkaExactlyOnceSinkITCase {
  private static final String RUN = "eos-run";


  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      LoopbackMiniCluster.extension(2);

  private static final int LINES = 3_000;
  private static final int BATCH = 50;

  static final AtomicBoolean ARMED = new AtomicBoolean();
  static final AtomicBoolean FAILED = new AtomicBoolean();
  /** Outcomes as the test sink receives them, by test id. */
  static final Map<String, Queue<BatchOutcome>> OUTCOMES = new ConcurrentHashMap<>();

  /** Three seconds of lines (1,000 a second), 50 a batch, on two stripes. */
  private static DatasetSource source(KafkaTestData dataset) {
    Schedule schedule = new ConstantRateSchedule(1_000, LINES);
    return DatasetSource.builder()
        .dataset(dataset)
        .schedule(schedule)
        .timeline(Timelines.of(TimestampMode.ORIGINAL, dataset, 0, schedule))
        .batchSize(BATCH)
        // as the generate job asks for exactly-once Kafka
        .endAfterCheckpoint(true)
        .build();
  }

  private static KafkaBackend backend(String topic) {
    return KafkaBackend.builder()
        .name("eos")
        .bootstrap(KafkaTestBroker.get().bootstrap())
        .topic(topic)
        .exactlyOnce(true)
        .transactionalIdPrefix(topic + "-" + System.nanoTime())
        .build();
  }

  /** The backend's delivery of {@code batches}, its outcomes going to the test's queue. */
  private static void deliver(KafkaBackend backend, DataStream<LineBatch> batches, KafkaTestData dataset, String id) {
    DeliveryContext context = new DeliveryContext(DeliverySettings.defaults(), RunContext.of(dataset.streams()).withRunId(RUN),
        new WindowGrid(KafkaTestData.START_MILLIS, 1_000), null, ZoneOffset.UTC,
        (spec, ctx, in) -> {
          throw new IllegalStateException("An exactly_once Kafka backend delivers through its own sink.");
        });
    assertThat(backend.endsAfterCheckpoint()).isTrue();
    backend.deliver(batches, context).sinkTo(new OutcomeQueue(id)).name("outcomes").uid("outcomes");
  }

  /** A topic of 3 partitions that keeps its records (they carry May 2021 timestamps). */
  private static void createTopic(String topic) {
    KafkaTestBroker.get().createTopic(topic, 3);
  }

  private static long ackedLines(Queue<BatchOutcome> outcomes) {
    return outcomes.stream().mapToLong(BatchOutcome::acked).sum();
  }

  private static int committedRecords(String topic) {
    return TopicReader.readAll(topic, "read_committed").size();
  }

  @Test
  void anOutcomeComesOnlyOnceItsTransactionIsCommittedAndAFinishedRunReportsEveryBatch() throws Exception {
    String topic = "eos-outcomes";
    String id = UUID.randomUUID().toString();
    createTopic(topic);
    KafkaTestData dataset = new KafkaTestData(LINES);
    KafkaBackend backend = backend(topic);
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.enableCheckpointing(300);
    deliver(backend, env.fromSource(source(dataset), WatermarkStrategy.noWatermarks(), "dataset"), dataset, id);
    Queue<BatchOutcome> outcomes = OUTCOMES.computeIfAbsent(id, k -> new ConcurrentLinkedQueue<>());
    JobClient client = env.executeAsync("kafka exactly once outcomes");

    // While the job runs: the acked lines first, then the committed records, which only grow.
    int observations = 0;
    int midRun = 0;
    List<String> seen = new ArrayList<>();
    while (!client.getJobStatus().get().isGloballyTerminalState()) {
      long acked = ackedLines(outcomes);
      int committed = committedRecords(topic);
      // commitTransaction returns once the coordinator has logged the commit; it writes the
      // partitions' commit markers after that, so a read_committed reader may see the records a
      // moment later: the check waits up to 15 s for them. Lines acked for a transaction that never
      // commits stay invisible and still fail it.
      long markersBy = System.nanoTime() + java.time.Duration.ofSeconds(15).toNanos();
      while (committed < acked && System.nanoTime() < markersBy) {
        committed = committedRecords(topic);
      }
      seen.add(acked + "<=" + committed);
      assertThat(committed).as("records committed when %d lines were acked (%s)", acked, seen).isGreaterThanOrEqualTo((int) acked);
      observations++;
      if (acked > 0 && acked < LINES) {
        midRun++;
      }
    }
    client.getJobExecutionResult().get(60, TimeUnit.SECONDS);
    System.err.println("Exactly-once outcomes, acked <= committed while running: " + seen);
    assertThat(midRun).as("observations with some but not all lines acked (%d in all)", observations).isPositive();

    // The finished run: every batch reported once, acked, and exactly what was committed.
    assertThat(outcomes).hasSize(LINES / BATCH);
    assertThat(outcomes).extracting(BatchOutcome::status).containsOnly(BatchOutcome.Status.ACKED);
    assertThat(outcomes.stream().map(BatchOutcome::batchId).distinct().count()).isEqualTo(LINES / BATCH);
    assertThat(ackedLines(outcomes)).isEqualTo(LINES);
    assertThat(outcomes).allSatisfy(o -> assertThat(o.latencyNanos()).isGreaterThanOrEqualTo(o.serviceNanos()));
    Map<Long, Long> copies = copiesBySeq(backend);
    assertThat(copies.keySet()).containsExactlyInAnyOrderElementsOf(LongStream.range(0, LINES).boxed().toList());
    assertThat(copies.values()).as("copies of each line").containsOnly(1L);
  }

  @Test
  void everyLineIsCommittedOnceAndEveryBatchReportedAcrossAFailureAndRestore() throws Exception {
    String topic = "eos-restore";
    String id = UUID.randomUUID().toString();
    createTopic(topic);
    KafkaTestData dataset = new KafkaTestData(LINES);
    KafkaBackend backend = backend(topic);
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.enableCheckpointing(200);
    DataStream<LineBatch> batches =
        env.fromSource(source(dataset), WatermarkStrategy.noWatermarks(), "dataset")
            .map(new FailOnceAfterCheckpoint())
            .returns(io.logbench.source.LineBatchTypeInfo.INSTANCE);
    deliver(backend, batches, dataset, id);
    env.execute("kafka exactly once restore");

    assertThat(FAILED).as("the job failed once after a checkpoint").isTrue();
    // the transactional path stamps every record with the run's header, as the idempotent one
    assertThat(TopicReader.readAll(topic, "read_committed"))
        .as("committed records carrying the run's header")
        .allSatisfy(r -> assertThat(r.headers().lastHeader(KafkaBackend.RUN_HEADER).value())
            .isEqualTo(RUN.getBytes(StandardCharsets.UTF_8)));
    Map<Long, Long> copies = copiesBySeq(backend);
    assertThat(copies.keySet()).containsExactlyInAnyOrderElementsOf(LongStream.range(0, LINES).boxed().toList());
    assertThat(copies.values()).as("copies of each line").containsOnly(1L);
    // read_uncommitted also sees what the failed attempt wrote and aborted
    int uncommitted = TopicReader.readAll(topic, "read_uncommitted").size();
    System.err.println("Exactly-once topic: " + LINES + " committed lines, " + uncommitted + " records read_uncommitted.");
    assertThat(uncommitted).isGreaterThanOrEqualTo(LINES);
    // Every batch reported, acked: a batch reported before the failure and again after the
    // restore shows twice, which the ledger counts once.
    Queue<BatchOutcome> outcomes = OUTCOMES.get(id);
    assertThat(outcomes).extracting(BatchOutcome::status).containsOnly(BatchOutcome.Status.ACKED);
    Map<Long, BatchOutcome> byBatch = outcomes.stream()
        .collect(Collectors.toMap(BatchOutcome::batchId, Function.identity(), (a, b) -> a));
    assertThat(byBatch).hasSize(LINES / BATCH);
    assertThat(byBatch.values().stream().mapToLong(BatchOutcome::acked).sum()).isEqualTo(LINES);
  }

  /**
   * {@code generate} with an exactly_once Kafka backend and its ledger: the run's last batches are
   * committed and reported before the end of input reaches the ledger, so its files, written at the
   * end of input, hold every line as acknowledged, as the topic holds every line once.
   */
  @Test
  void aGenerateRunsLedgerHoldsEveryBatchCommitted(@TempDir Path dir) throws Exception {
    String topic = "eos-generate";
    createTopic(topic);
    int lines = 2_000;
    RunPlan plan = RunPlan.of(ConfigLoader.parse(String.join("\n",
        "dataset: {kind: app-json, lines: " + lines + ", streams: 3}",
        "schedule: {kind: constant, rate: 1000}",
        "batch: {lines: 100}",
        "window: 1s",
        "parallelism: 2",
        "run: {checkpoint_interval: 500ms}",
        "backends:",
        "  - kind: kafka",
        "    name: eos",
        "    bootstrap: " + KafkaTestBroker.get().bootstrap(),
        "    topic: " + topic,
        "    exactly_once: true",
        "    transactional_id_prefix: " + topic + "-" + System.nanoTime(),
        ""), "eos-generate-it"));
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    Path runDir = dir.resolve("run");
    GenerateJob.Result result = GenerateJob.of(plan).ledgerDir(runDir).run(env);

    assertThat(result.backends()).singleElement().satisfies(s -> {
      assertThat(s.batches()).isEqualTo(lines / 100);
      assertThat(s.acked()).isEqualTo(lines);
    });
    List<LedgerEntry> ledger = LedgerFiles.read(runDir.resolve("eos"));
    assertThat(runDir.resolve("eos").resolve(LedgerFiles.CSV)).exists();
    assertThat(ledger).isNotEmpty().allSatisfy(e -> {
      assertThat(e.acked()).as("window %d", e.windowStartMillis()).isEqualTo(e.expected());
      assertThat(e.sent()).isEqualTo(e.expected());
    });
    assertThat(ledger.stream().mapToLong(LedgerEntry::acked).sum()).isEqualTo(lines);
    assertThat(committedRecords(topic)).isEqualTo(lines);
  }

  private static Map<Long, Long> copiesBySeq(KafkaBackend backend) {
    KafkaCounter counter = KafkaCounter.of(backend, Duration.ofSeconds(60), RUN);
    SortedMap<Long, List<Long>> seqs =
        counter.seqsPerWindow(new WindowGrid(KafkaTestData.START_MILLIS, 1_000), Long.MIN_VALUE, Long.MAX_VALUE);
    return seqs.values().stream()
        .flatMap(List::stream)
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
  }

  /** Keeps every outcome it gets, as it gets it, under the test id. */
  record OutcomeQueue(String testId) implements Sink<BatchOutcome> {
    @Override
    public SinkWriter<BatchOutcome> createWriter(WriterInitContext context) {
      return new SinkWriter<>() {
        @Override
        public void write(BatchOutcome o, Context ctx) {
          OUTCOMES.computeIfAbsent(testId, k -> new ConcurrentLinkedQueue<>()).add(o);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
      };
    }
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
