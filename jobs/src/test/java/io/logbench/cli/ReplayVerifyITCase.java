package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.count.CountReader;
import io.logbench.dataset.LineBatch;
import io.logbench.job.BackendSummary;
import io.logbench.job.GenerateJob;
import io.logbench.ledger.LedgerFiles;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunIds;
import io.logbench.plan.RunPlan;
import io.logbench.replay.ReplayFiles;
import io.logbench.replay.Replays;
import io.logbench.replay.RestoreRecord;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Capabilities;
import io.logbench.sink.DeliveryContext;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.source.DatasetSourceBuilder;
import io.logbench.source.LineBatchTypeInfo;
import io.logbench.testing.LoopbackMiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery duplicates end to end on a MiniCluster against the VictoriaLogs emulator (not a real
 * server; like VictoriaLogs it keeps every copy it is sent): a generate run whose delivery task
 * is killed mid-run, after a checkpoint that holds a batch in flight, restores and sends batches
 * again; verify names the copies REPLAYED with their ranges and exits 0 (1 with --strict); one
 * more copy of a line no restore sent again makes that window DUPLICATE and verify exit 1.
 */
class ReplayVerifyITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(4);

  private static final int LINES = 8_000;
  private static final long T0 = 1_619_838_000_000L; // 2021-05-01T03:00:00Z
  private static final Pattern SEQ = Pattern.compile("\"seq\":(\\d+)");

  /** Per test id: what the failure injection has seen (operators are copies in task threads). */
  static final Map<String, Injection> INJECTIONS = new ConcurrentHashMap<>();

  @TempDir Path dir;
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().retention(Duration.ofDays(36_500));

  @AfterEach
  void stop() {
    vl.close();
  }

  /** The steps of the failure: a batch held in flight, a checkpoint holding it, then the kill. */
  static final class Injection {
    /** The batch whose answer is held back (it stays in flight), or -1 before. */
    final AtomicLong held = new AtomicLong(-1);
    /** The emulator stored the held batch. */
    final AtomicBoolean heldStored = new AtomicBoolean();
    /** The task was killed (once). */
    final AtomicBoolean killed = new AtomicBoolean();
    /** The held answer; failing it fails the delivery task. */
    final CompletableFuture<SendResult> heldAnswer = new CompletableFuture<>();
    /** The first batch whose outcome left the delivery, or -1 before. */
    final AtomicLong settled = new AtomicLong(-1);
    /** Checkpoints taken after that outcome left: the restore cannot send that batch again. */
    final Set<Long> afterSettled = ConcurrentHashMap.newKeySet();
  }

  /**
   * The VictoriaLogs backend with a failure injected: the answer to the first batch is held back
   * (the emulator stored it, the task never hears so), and once a checkpoint taken with it in
   * flight, and after another batch's outcome left, has completed, that answer fails, which fails
   * the task, as a bug in a sender would. The batch is held from the start so the checkpoint comes
   * while the source still runs (a finished source's operators take no part in later snapshots).
   */
  record KilledMidRun(BackendSpec inner, String testId) implements BackendSpec {
    @Override
    public String kind() {
      return inner.kind();
    }

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public Capabilities capabilities() {
      return inner.capabilities();
    }

    @Override
    public CountReader openCounter(RunContext run) {
      return inner.openCounter(run);
    }

    @Override
    public DataStream<BatchOutcome> deliver(DataStream<LineBatch> batches, DeliveryContext context) {
      DataStream<LineBatch> watched = batches.map(new CheckpointWatch(testId))
          .returns(LineBatchTypeInfo.INSTANCE)
          .name("checkpoint watch[" + name() + "]")
          .setParallelism(batches.getParallelism());
      DataStream<BatchOutcome> outcomes = context.requests().apply(this, context, watched);
      return outcomes.map(new OutcomeWatch(testId))
          .returns(TypeInformation.of(BatchOutcome.class))
          .name("outcome watch[" + name() + "]")
          .setParallelism(outcomes.getParallelism());
    }

    @Override
    public BatchSender open(RunContext run) {
      BatchSender real = inner.open(run);
      Injection in = INJECTIONS.get(testId);
      return new BatchSender() {
        @Override
        public CompletableFuture<SendResult> send(LineBatch batch) {
          if (!in.killed.get() && in.held.compareAndSet(-1, batch.batchId())) {
            real.send(batch).whenComplete((r, e) ->
                in.heldStored.set(r != null && r.kind() == SendResult.Kind.ACCEPTED));
            return in.heldAnswer; // in flight until the watch fails it
          }
          return real.send(batch);
        }

        @Override
        public void close() {
          real.close();
        }
      };
    }
  }

  /** Passes batches on; kills the task once a checkpoint taken with the held batch in flight completes. */
  static final class CheckpointWatch
      implements MapFunction<LineBatch, LineBatch>, CheckpointedFunction, CheckpointListener {
    private final String testId;
    private final Map<Long, Boolean> heldAt = new HashMap<>();

    CheckpointWatch(String testId) {
      this.testId = testId;
    }

    @Override
    public LineBatch map(LineBatch batch) {
      return batch;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      // chained to the delivery: a batch sent before this barrier is in its checkpoint, in flight
      heldAt.put(context.getCheckpointId(), INJECTIONS.get(testId).heldStored.get());
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      Injection in = INJECTIONS.get(testId);
      if (heldAt.getOrDefault(checkpointId, false) && in.afterSettled.contains(checkpointId)
          && in.killed.compareAndSet(false, true)) {
        in.heldAnswer.completeExceptionally(new IllegalStateException("The test kills the task here."));
      }
    }
  }

  /** Passes outcomes on; notes the first, and the checkpoints taken after it left. */
  static final class OutcomeWatch implements MapFunction<BatchOutcome, BatchOutcome>, CheckpointedFunction {
    private final String testId;
    private boolean sawSettled;

    OutcomeWatch(String testId) {
      this.testId = testId;
    }

    @Override
    public BatchOutcome map(BatchOutcome o) {
      sawSettled |= INJECTIONS.get(testId).settled.compareAndSet(-1, o.batchId());
      return o;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      if (sawSettled) {
        INJECTIONS.get(testId).afterSettled.add(context.getCheckpointId());
      }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
  }

  private Path config() throws IOException {
    Path config = dir.resolve("run.yaml");
    Files.writeString(config, String.join("\n",
        "name: replay-it",
        "dataset: {kind: app-json, lines: " + LINES + ", streams: 4, start: \"2021-05-01T03:00:00Z\", rate: 1000}",
        "schedule: {kind: constant, rate: 1000}",
        "timestamps: original",
        "window: 1s",
        "zone: UTC",
        "batch: {lines: 100}",
        "parallelism: 2",
        "run: {checkpoint_interval: 300ms}",
        "backends:",
        "  - {kind: victorialogs, name: vl, url: '" + vl.url() + "', retention: 36500d, timeout: 600s, in_flight: 4}",
        ""));
    return config;
  }

  private static int cli(StringBuilder printed, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    printed.setLength(0);
    printed.append(out.toString(StandardCharsets.UTF_8)).append(err.toString(StandardCharsets.UTF_8));
    return code;
  }

  /** How often the emulator holds each sequence id. */
  private Map<Long, Integer> copiesAtTheEmulator() {
    Map<Long, Integer> copies = new TreeMap<>();
    for (VictoriaLogsEmulator.Row r : vl.rows()) {
      Matcher m = SEQ.matcher(r.msg());
      assertThat(m.find()).as("a seq in %s", r.msg()).isTrue();
      copies.merge(Long.parseLong(m.group(1)), 1, Integer::sum);
    }
    return copies;
  }

  /** verdicts.csv rows by window start (ISO time), each split into its fields. */
  private static Map<String, String[]> verdicts(Path runDir) throws IOException {
    Map<String, String[]> out = new TreeMap<>();
    for (String line : Files.readAllLines(runDir.resolve("verdicts.csv")).subList(1, 9)) {
      String[] f = line.split(",", 8);
      if (f[7].startsWith("\"")) { // a detail with commas is quoted as in RFC 4180
        f[7] = f[7].substring(1, f[7].length() - 1).replace("\"\"", "\"");
      }
      out.put(f[1], f);
    }
    return out;
  }

  @Test
  void copiesSentAgainAfterARestoreAreReplayedAndACopyNobodySentIsDuplicate() throws Exception {
    String testId = UUID.randomUUID().toString();
    INJECTIONS.put(testId, new Injection());
    Path config = config();
    Path runDir = dir.resolve("run");
    RunConfig c = ConfigLoader.load(config);
    RunPlan plan = RunPlan.of(c);
    BackendConfig b = c.backends().get(0);
    long runStart = System.currentTimeMillis() + GenerateJob.DEFAULT_START_LEAD.toMillis();
    String runId = RunIds.create(c.name(), runStart, new java.security.SecureRandom());
    GenerateJob job = new GenerateJob(plan, List.of(new BackendConfig(new KilledMidRun(b.spec(), testId), b.common())),
        c.checkpointInterval()).runDir(runDir).runStartMillis(runStart).runId(runId);
    Files.createDirectories(runDir);
    io.logbench.run.RunJson.write(runDir, config, plan, runStart, runId, null);

    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.configure(conf);
    GenerateJob.Result result = job.run(env);
    LedgerFiles.writeCsv(runDir, LedgerFiles.read(runDir.resolve("ledger").resolve("vl")), c.zone());

    // the task was killed once, with a batch in flight in the checkpoint it was restored from
    Injection in = INJECTIONS.get(testId);
    assertThat(in.killed).isTrue();
    long held = in.held.get();
    List<RestoreRecord> records = ReplayFiles.in(runDir).read();
    assertThat(records).filteredOn(r -> r.kind().equals(RestoreRecord.SOURCE)).hasSize(2)
        .allSatisfy(r -> {
          assertThat(r.checkpointId()).isPositive();
          assertThat(r.stripes()).hasSize(1);
        });
    assertThat(records).filteredOn(r -> r.kind().equals(RestoreRecord.IN_FLIGHT))
        .anySatisfy(r -> {
          assertThat(r.attempt()).isPositive();
          assertThat(r.checkpointId()).isPositive();
          assertThat(r.replayed()).anySatisfy(x -> assertThat(x.firstBatch()).isEqualTo(held));
        });
    Replays replays = Replays.of(records, "vl");

    // what the emulator holds, seen by the test itself: every line, and copies only of lines a
    // restore sent again (the held batch among them)
    Map<Long, Integer> copies = copiesAtTheEmulator();
    assertThat(copies).hasSize(LINES);
    long extra = copies.values().stream().mapToLong(n -> n - 1).sum();
    assertThat(extra).isGreaterThanOrEqualTo(100);
    assertThat(copies.get(held * 100)).isGreaterThan(1);
    copies.forEach((seq, n) -> {
      if (n > 1) {
        assertThat(replays.contains(seq)).as("seq %d held %d times", seq, n).isTrue();
      }
    });

    // generate's summary: every line acked, the replays counted as resends and requests
    BackendSummary s = result.backends().get(0);
    assertThat(s.acked()).isEqualTo(LINES);
    assertThat(s.replays().restores()).isEqualTo(2);
    assertThat(s.resentRequests()).containsEntry(BackendSummary.REPLAY, replays.batches());
    assertThat(s.resentLines()).containsEntry(BackendSummary.REPLAY, replays.lines());
    // every request the emulator got is counted; at most a lease (8 batches) and a queued batch
    // per stripe more, which the failed attempt may not have sent
    long received = vl.requestsReceived();
    assertThat(s.requests()).isBetween(received, received + 2 * (DatasetSourceBuilder.DEFAULT_LEASE_BATCHES + 1));

    // verify: the copies are REPLAYED, with the ranges; exit 0, and 1 with --strict
    StringBuilder printed = new StringBuilder();
    int code = cli(printed, "verify", config.toString(), "--run-dir", runDir.toString());
    assertThat(code).as(printed.toString()).isZero();
    Map<String, String[]> byWindow = verdicts(runDir);
    long replayedLines = 0;
    for (String[] v : byWindow.values()) {
      long acked = Long.parseLong(v[5]);
      long observed = Long.parseLong(v[6]);
      assertThat(acked).isEqualTo(1000);
      assertThat(v[3]).as("window %s", v[1]).isEqualTo(observed > acked ? "REPLAYED" : "OK");
      if (observed > acked) {
        replayedLines += observed - acked;
        assertThat(v[7]).contains("every extra copy of a line sent again after a restore", "seq ", "restored at",
            "from checkpoint");
      }
    }
    assertThat(replayedLines).isEqualTo(extra);
    assertThat(Files.readAllLines(runDir.resolve("missing.csv")))
        .anyMatch(l -> l.startsWith("vl,") && l.contains(",replayed,") && l.endsWith(",sent again after a restore"))
        .noneMatch(l -> l.contains(",duplicate,"));
    assertThat(printed).contains("note: backend vl holds " + extra + " copies of lines sent again after a restore");

    assertThat(cli(printed, "verify", config.toString(), "--run-dir", runDir.toString(), "--strict"))
        .as(printed.toString()).isEqualTo(1);
    assertThat(printed).contains("(--strict)");

    // one more copy of a line no restore sent again (a batch whose outcome left before the
    // checkpoint the restore went back to): its window is DUPLICATE, and verify exits 1
    long stranger = in.settled.get() * 100 + 17;
    assertThat(replays.contains(stranger)).as("seq %d sent again by a restore", stranger).isFalse();
    assertThat(vl.copyRows(r -> r.msg().contains("\"seq\":" + stranger + "}"))).isEqualTo(1);
    code = cli(printed, "verify", config.toString(), "--run-dir", runDir.toString());
    assertThat(code).as(printed.toString()).isEqualTo(1);
    String window = VerifyOutputsTime.iso(T0 + stranger / 1000 * 1000); // a line a millisecond
    long copiesBefore = Long.parseLong(byWindow.get(window)[6]) - 1000;
    assertThat(printed).contains("verify: backend vl holds " + (copiesBefore + 1)
        + " line(s) more than acknowledged in 1 window(s)");
    Map<String, String[]> after = verdicts(runDir);
    assertThat(after.get(window)[3]).isEqualTo("DUPLICATE");
    assertThat(after.get(window)[7]).isEqualTo(copiesBefore == 0 ? "1 line(s) more than acknowledged"
        : (copiesBefore + 1) + " line(s) more than acknowledged; restores explain " + copiesBefore
            + " extra cop(ies), not 1 extra cop(ies) of lines no restore sent again (replayed: "
            + replays.describe(stranger / 1000 * 1000, stranger / 1000 * 1000 + 1000, 3) + ")");
    after.forEach((w, v) -> {
      if (!w.equals(window)) {
        assertThat(v[3]).isEqualTo(byWindow.get(w)[3]);
      }
    });
    assertThat(Files.readAllLines(runDir.resolve("missing.csv")))
        .contains("vl," + window + ",duplicate," + stranger + ",2,");
  }

  /** Window times as verdicts.csv writes them in UTC. */
  private static final class VerifyOutputsTime {
    static String iso(long millis) {
      return java.time.OffsetDateTime.ofInstant(java.time.Instant.ofEpochMilli(millis), java.time.ZoneOffset.UTC)
          .format(java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    }
  }
}
