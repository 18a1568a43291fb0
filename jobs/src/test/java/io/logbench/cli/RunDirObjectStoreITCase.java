package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.job.BackendSummary;
import io.logbench.job.GenerateJob;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.ledger.RunSummary;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunIds;
import io.logbench.plan.RunPlan;
import io.logbench.replay.ReplayFiles;
import io.logbench.replay.RestoreRecord;
import io.logbench.report.Reports;
import io.logbench.rundir.ObjectStoreEmulator;
import io.logbench.rundir.RunDir;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.testing.LoopbackMiniCluster;
import io.logbench.verify.VerifyOutputs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run directory on an object store: {@code generate}, {@code verify} and {@code report} with
 * {@code run.dir} (or {@code --run-dir}) an {@code objstore://} URI, served by the test's {@link
 * ObjectStoreEmulator} through Flink's file systems (an emulator of object-store semantics: no
 * append, no rename, create-once files; not a real S3 or HDFS), against a real OpenSearch and the
 * VictoriaLogs emulator. Every file of the run lands in the store, none on the local disk, and
 * nothing logbench or Flink did was refused by the store. A restore mid-run (a delivery task
 * killed after a checkpoint, as {@link ReplayVerifyITCase} does) leaves a ledger that counts every
 * line once and restore records that verify reads from the store to name the copies REPLAYED.
 */
class RunDirObjectStoreITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(4);

  @TempDir Path dir;

  private final String bucket = "rundir-it-" + UUID.randomUUID().toString().substring(0, 8);
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().retention(Duration.ofDays(36_500));

  @AfterEach
  void cleanUp() throws Exception {
    vl.close();
    ObjectStoreEmulator.dropBucket(bucket);
  }

  private static List<String> refusedSince(int before) {
    List<String> all = ObjectStoreEmulator.refusals();
    return all.subList(before, all.size());
  }

  @Test
  void generateVerifyAndReportReadAndWriteTheRunDirectoryInAnObjectStore() throws Exception {
    String uri = ObjectStoreEmulator.SCHEME + "://" + bucket + "/runs/quickstart-5m";
    String index = "rundir-it-" + UUID.randomUUID().toString().substring(0, 8);
    Path config = dir.resolve("run.yaml");
    // five minutes of the quickstart hour, replayed 60 times faster
    Files.writeString(config, String.join("\n",
        "name: rundir-objstore",
        "dataset: {kind: nginx-month, mode: python-compatible, seed: 8, from: \"2021-05-01T00:00:00-03:00\","
            + " until: \"2021-05-01T00:05:00-03:00\"}",
        "schedule: {kind: replay, speedup: 60}",
        "timestamps: original",
        "batch: {lines: 100}",
        "window: 1m",
        "zone: America/Sao_Paulo",
        "parallelism: 2",
        "run: {dir: '" + uri + "', checkpoint_interval: 1s}",
        "backends:",
        "  - {kind: opensearch, name: opensearch, url: '" + OpenSearchTestServer.get().url() + "', index: " + index
            + "}",
        "  - {kind: victorialogs, name: vl, url: '" + vl.url() + "', retention: 36500d}",
        ""));
    int refusedBefore = ObjectStoreEmulator.refusals().size();

    Printed generate = Printed.run("generate", config.toString(), "--quiet");
    assertThat(generate.code()).as("%s%n%s", generate.out(), generate.err()).isZero();
    assertThat(generate.out()).contains("ledger (" + uri + "/ledger.csv):", "wrote " + uri + "/report.html");

    RunDir run = RunDir.of(uri);
    assertThat(run.files("")).contains("run.json", "ledger.csv", RunSummary.FILE, "summary.csv",
        "ingest.csv", Reports.FILE);
    for (String backend : List.of("opensearch", "vl")) {
      RunDir own = run.resolve("ledger/" + backend);
      // the log as segments written once, never an appended ledger.jsonl
      assertThat(own.exists(LedgerFiles.JSONL)).isFalse();
      assertThat(LedgerFiles.segments(own)).as(backend).isNotEmpty();
      assertThat(own.exists(LedgerFiles.CSV)).isTrue();
      // each stripe's lease: its latest extension only
      for (String stripe : run.directories("replay/" + backend)) {
        assertThat(run.files("replay/" + backend + "/" + stripe)).as(stripe).hasSize(1);
      }
      assertThat(run.directories("replay/" + backend)).containsExactly("stripe-0", "stripe-1");
    }
    List<LedgerEntry> ledger = LedgerFiles.read(run);
    assertThat(ledger).hasSize(10).allSatisfy(e -> {
      assertThat(e.acked()).isEqualTo(e.expected());
      assertThat(e.expected()).isPositive();
    });
    // nothing went to a local folder named after the URI
    assertThat(Path.of(ObjectStoreEmulator.SCHEME + ":")).doesNotExist();

    Printed verify = Printed.run("verify", config.toString(), "--quiet");
    assertThat(verify.code()).as("%s%n%s", verify.out(), verify.err()).isZero();
    assertThat(verify.out()).contains("wrote " + uri + "/" + VerifyOutputs.VERDICTS);
    List<String> verdicts = run.readString(VerifyOutputs.VERDICTS).lines().toList();
    assertThat(verdicts).hasSize(1 + 10);
    assertThat(verdicts.subList(1, verdicts.size())).allSatisfy(v -> assertThat(v.split(",")[3]).isEqualTo("OK"));

    Printed report = Printed.run("report", uri);
    assertThat(report.code()).as("%s%n%s", report.out(), report.err()).isZero();
    assertThat(report.out()).startsWith("wrote " + uri + "/" + Reports.FILE);
    String html = run.readString(Reports.FILE);
    assertThat(html).contains(uri, "verdicts.csv");

    assertThat(refusedSince(refusedBefore)).as("operations the object store refused").isEmpty();
  }

  @Test
  void aRestoreMidRunLeavesALedgerThatCountsEachLineOnceAndVerifyNamesTheCopiesReplayed() throws Exception {
    String testId = UUID.randomUUID().toString();
    ReplayVerifyITCase.INJECTIONS.put(testId, new ReplayVerifyITCase.Injection());
    String uri = ObjectStoreEmulator.SCHEME + "://" + bucket + "/runs/restored";
    RunDir run = RunDir.of(uri);
    Path config = dir.resolve("run.yaml");
    Files.writeString(config, String.join("\n",
        "name: rundir-objstore-restore",
        "dataset: {kind: app-json, lines: 8000, streams: 4, start: \"2021-05-01T03:00:00Z\", rate: 1000}",
        "schedule: {kind: constant, rate: 1000}",
        "timestamps: original",
        "window: 1s",
        "zone: UTC",
        "batch: {lines: 100}",
        "parallelism: 2",
        "run: {dir: '" + uri + "', checkpoint_interval: 300ms}",
        "backends:",
        "  - {kind: victorialogs, name: vl, url: '" + vl.url() + "', retention: 36500d, timeout: 600s, in_flight: 4}",
        ""));
    int refusedBefore = ObjectStoreEmulator.refusals().size();
    int putsBefore = ObjectStoreEmulator.puts().size();
    RunConfig c = ConfigLoader.load(config);
    assertThat(c.runDir()).isEqualTo(run);
    RunPlan plan = RunPlan.of(c);
    BackendConfig b = c.backends().get(0);
    long runStart = System.currentTimeMillis() + GenerateJob.DEFAULT_START_LEAD.toMillis();
    String runId = RunIds.create(c.name(), runStart, new java.security.SecureRandom());
    // the job's checkpoints go to the object store too, and the restore reads them from there
    GenerateJob job = new GenerateJob(plan,
        List.of(new BackendConfig(new ReplayVerifyITCase.KilledMidRun(b.spec(), testId), b.common())),
        c.checkpointInterval()).runDir(run).checkpointDir(c.checkpointDir(run)).runStartMillis(runStart)
        .runId(runId);
    io.logbench.run.RunJson.write(run, config, plan, runStart, runId, null, java.util.Map.of());

    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.configure(conf);
    GenerateJob.Result result = job.run(env);
    assertThat(ReplayVerifyITCase.INJECTIONS.get(testId).killed).isTrue();
    BackendSummary s = result.backends().get(0);
    assertThat(s.acked()).isEqualTo(8000);
    assertThat(s.replays().restores()).isEqualTo(2);
    List<String> puts = ObjectStoreEmulator.puts().subList(putsBefore, ObjectStoreEmulator.puts().size());
    assertThat(puts).as("Flink's checkpoints went to the store").anySatisfy(p ->
        assertThat(p).startsWith(uri + "/checkpoints/").endsWith("/_metadata"));

    // the ledger's segments, cut back to the checkpoint on restore, count every line once
    List<LedgerEntry> rows = LedgerFiles.read(run.resolve("ledger/vl"));
    assertThat(rows).hasSize(8).allSatisfy(e -> {
      assertThat(e.sent()).isEqualTo(1000);
      assertThat(e.acked()).isEqualTo(1000);
    });
    LedgerFiles.writeCsv(run, rows, c.zone());

    // one file per restore record, read back from the store
    assertThat(run.files(ReplayFiles.RESTORE_RECORDS)).hasSizeGreaterThanOrEqualTo(3);
    List<RestoreRecord> records = ReplayFiles.in(run).read();
    assertThat(records).filteredOn(r -> r.kind().equals(RestoreRecord.SOURCE)).hasSize(2)
        .allSatisfy(r -> assertThat(r.checkpointId()).isPositive());
    assertThat(records).filteredOn(r -> r.kind().equals(RestoreRecord.IN_FLIGHT)).isNotEmpty();

    Printed verify = Printed.run("verify", config.toString(), "--run-dir", uri, "--quiet");
    assertThat(verify.code()).as("%s%n%s", verify.out(), verify.err()).isZero();
    List<String> verdicts = run.readString(VerifyOutputs.VERDICTS).lines().toList();
    assertThat(verdicts).hasSize(1 + 8);
    assertThat(verdicts.subList(1, verdicts.size()))
        .allSatisfy(v -> assertThat(v.split(",")[3]).isIn("OK", "REPLAYED"))
        .anySatisfy(v -> assertThat(v.split(",")[3]).isEqualTo("REPLAYED"));
    assertThat(verify.out()).contains("copies of lines sent again after a restore");

    assertThat(refusedSince(refusedBefore)).as("operations the object store refused").isEmpty();
  }
}
