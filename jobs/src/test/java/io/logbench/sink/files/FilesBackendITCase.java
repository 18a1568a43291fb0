package io.logbench.sink.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.job.FlinkEnvironments;
import io.logbench.layout.ChunkWriter;
import io.logbench.layout.FileChunk;
import io.logbench.layout.SeedLayout.LayoutFile;
import io.logbench.layout.SeedLayout;
import io.logbench.schedule.ConstantRateSchedule;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.schedule.Schedule;
import io.logbench.schedule.Timeline;
import io.logbench.schedule.Timelines;
import io.logbench.schedule.TimestampMode;
import io.logbench.schedule.UnpacedSchedule;
import io.logbench.schedule.WindowCount;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.WindowGrid;
import io.logbench.source.DatasetSource;
import io.logbench.testing.LoopbackMiniCluster;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files backend on a MiniCluster: seed 004's first minutes from a parallel source give the
 * same bytes as the {@code dataset} command's writer and the seed script, also across a restore.
 */
class FilesBackendITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      LoopbackMiniCluster.extension(4);

  static final ZoneId ZONE = NginxMonthDataset.SCRIPT_ZONE;
  static final long FROM = Instant.parse("2021-05-01T03:00:00Z").toEpochMilli();
  static final long UNTIL = FROM + 3 * 60_000L;
  static final String SCRIPT_SHA256 = "c422a1bb1f05ee4a73e5f9a1e4a8cbe060577d15f82ebf80849831b269bf8ee1";
  static final long SCRIPT_BYTES = 2_954_059L;

  static final ConcurrentLinkedQueue<BatchOutcome> OUTCOMES = new ConcurrentLinkedQueue<>();
  static final AtomicInteger SEEN = new AtomicInteger();
  static final AtomicBoolean ARMED = new AtomicBoolean();
  static final AtomicBoolean FAILED = new AtomicBoolean();

  private final NginxMonthDataset dataset = new NginxMonthDataset(8, NginxMonthDataset.Mode.PYTHON_COMPATIBLE);
  private final long first = dataset.countBefore(FROM);
  private final long lines = dataset.countBefore(UNTIL) - first;

  @BeforeEach
  void reset() {
    OUTCOMES.clear();
    SEEN.set(0);
    ARMED.set(false);
    FAILED.set(false);
  }

  @Test
  void parallelStripesGiveTheSeedScriptsBytes(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("out");
    Schedule schedule = new UnpacedSchedule(lines);
    run(schedule, out, new Record());

    Path reference = referenceLayout(tmp.resolve("reference"));
    assertSameFiles(out, reference);
    byte[] day = Files.readAllBytes(out.resolve("2021-05-01.log"));
    assertThat(day.length).isEqualTo(SCRIPT_BYTES);
    assertThat(sha256(day)).isEqualTo(SCRIPT_SHA256);
    assertOutcomesCoverEveryLineOnce(schedule);
  }

  @Test
  void aRestoreAfterACheckpointNeitherDuplicatesNorLosesALine(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("out");
    // about three seconds: time for checkpoints before the failure and batches after it
    Schedule schedule = new ConstantRateSchedule(lines / 3.0, lines);
    run(schedule, out, new FailOnceAfterCheckpoint());

    assertThat(FAILED).as("the job failed once after a checkpoint").isTrue();
    assertSameFiles(out, referenceLayout(tmp.resolve("reference")));
    assertThat(sha256(Files.readAllBytes(out.resolve("2021-05-01.log")))).isEqualTo(SCRIPT_SHA256);
    assertThat(assertOutcomesCoverEveryLineOnce(schedule))
        .as("batches written again after the restore (their bytes were truncated first)")
        .isPositive();
  }

  private void run(Schedule schedule, Path out, MapFunction<BatchOutcome, BatchOutcome> map) throws Exception {
    Timeline timeline = Timelines.of(TimestampMode.ORIGINAL, dataset, first, schedule);
    DatasetSource source =
        DatasetSource.builder()
            .dataset(dataset)
            .firstIndex(first)
            .schedule(schedule)
            .timeline(timeline)
            .batchSize(100)
            .build();
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    env.enableCheckpointing(100);
    FilesBackend spec = new FilesBackend("files", out.toString());
    FilesBackend.write(
            env.fromSource(source, WatermarkStrategy.noWatermarks(), "dataset"),
            spec,
            WindowGrid.aligned(60_000, ZONE, FROM),
            ZONE)
        .map(map)
        .setParallelism(1)
        .sinkTo(new DiscardingSink<>())
        .setParallelism(1);
    env.execute("files backend test");
  }

  /** The {@code dataset} command's writer over the same minutes. */
  private Path referenceLayout(Path dir) throws Exception {
    Files.createDirectories(dir);
    List<LayoutFile> files = SeedLayout.plan(dataset, ZONE, FROM, UNTIL, 5_000);
    ChunkWriter writer = new ChunkWriter(dataset, dir);
    for (LayoutFile f : files) {
      try (RandomAccessFile raf = new RandomAccessFile(dir.resolve(f.name()).toFile(), "rw")) {
        raf.setLength(f.size());
      }
      for (FileChunk c : f.chunks()) {
        writer.write(c);
      }
    }
    return dir;
  }

  private static void assertSameFiles(Path actual, Path expected) throws Exception {
    List<String> names;
    try (var s = Files.list(expected)) {
      names = s.map(p -> p.getFileName().toString()).sorted().toList();
    }
    try (var s = Files.list(actual)) {
      assertThat(s.map(p -> p.getFileName().toString()).sorted().toList()).isEqualTo(names);
    }
    for (String n : names) {
      byte[] a = Files.readAllBytes(actual.resolve(n));
      byte[] e = Files.readAllBytes(expected.resolve(n));
      assertThat(a.length).as("size of %s", n).isEqualTo(e.length);
      assertThat(a).as("bytes of %s", n).isEqualTo(e);
    }
  }

  /** Checks the outcomes and returns how many batches had more than one. */
  private long assertOutcomesCoverEveryLineOnce(Schedule schedule) {
    TreeMap<Long, List<BatchOutcome>> byBatch =
        OUTCOMES.stream().collect(Collectors.groupingBy(BatchOutcome::batchId, TreeMap::new, Collectors.toList()));
    long batches = (lines + 99) / 100;
    assertThat(byBatch.keySet()).hasSize((int) batches);
    assertThat(byBatch.firstKey()).isZero();
    assertThat(byBatch.lastKey()).isEqualTo(batches - 1);
    TreeMap<Long, Long> perWindow = new TreeMap<>();
    for (List<BatchOutcome> same : byBatch.values()) {
      BatchOutcome o = same.get(0);
      assertThat(same).as("outcomes of batch %d", o.batchId()).allMatch(x -> withTimesOf(o, x).equals(o));
      assertThat(o.status()).isEqualTo(BatchOutcome.Status.ACKED);
      assertThat(o.acked()).isEqualTo(o.lines());
      o.windows().forEach(w -> perWindow.merge(w.windowStartMillis(), (long) w.acked(), Long::sum));
    }
    ExpectedCounts expected =
        new ExpectedCounts(Timelines.of(TimestampMode.ORIGINAL, dataset, first, schedule), 0);
    TreeMap<Long, Long> want = new TreeMap<>();
    for (WindowCount w : expected.windows(FROM, UNTIL, 60_000).windows()) {
      want.put(w.startMillis(), w.count());
    }
    assertThat(perWindow).isEqualTo(want);
    return byBatch.values().stream().filter(l -> l.size() > 1).count();
  }

  /** {@code x} with the latency figures of {@code o} (those differ between deliveries). */
  private static BatchOutcome withTimesOf(BatchOutcome o, BatchOutcome x) {
    return new BatchOutcome(x.backend(), x.batchId(), x.firstSeq(), x.lines(), x.status(), x.httpStatus(),
        x.attempts(), o.scheduledNanos(), o.latencyNanos(), o.serviceNanos(), x.windows());
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  /** Records outcomes. */
  static class Record implements MapFunction<BatchOutcome, BatchOutcome> {
    @Override
    public BatchOutcome map(BatchOutcome o) {
      OUTCOMES.add(o);
      return o;
    }
  }

  /** Records outcomes; fails once, on the first outcome after a checkpoint that followed some. */
  static final class FailOnceAfterCheckpoint extends Record implements CheckpointListener {
    @Override
    public BatchOutcome map(BatchOutcome o) {
      if (ARMED.get() && FAILED.compareAndSet(false, true)) {
        // this batch was written after the checkpoint: the restore truncates and writes it again
        OUTCOMES.add(o);
        throw new IllegalStateException("Failing once after a checkpoint, as the test asks.");
      }
      SEEN.incrementAndGet();
      return super.map(o);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      if (SEEN.get() >= 10) {
        ARMED.set(true);
      }
    }
  }
}
