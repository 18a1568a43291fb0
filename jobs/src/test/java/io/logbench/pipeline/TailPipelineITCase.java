package io.logbench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.cli.Printed;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunPlan;
import io.logbench.report.CsvTable;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.sink.loki.LokiServer;
import io.logbench.sink.victorialogs.VictoriaLogsServer;
import io.logbench.testing.FluentBit;
import io.logbench.testing.LoopbackMiniCluster;
import io.logbench.verify.VerifyPlan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed 000 layout as a pipeline: logbench writes an app's log file ({@code file} write,
 * rotated by size, keep 2), the real Fluent Bit tails it ({@code tail}, a {@code json} parser, a
 * {@code db} of offsets) and ships every record to the real Loki ({@code loki} output), the real
 * VictoriaLogs ({@code http} output to {@code /insert/jsonline}) and the in-JVM OpenSearch
 * ({@code opensearch} output); logbench counts each by the run and sequence ids in the lines.
 * A bounded run (75 s at 10 lines/s in batches of 20, files of 80 lines, 5 s windows; the canary runs the same continuously):
 * Fluent Bit restarted once within keep (nothing lost, nothing shown) and once stopped while the
 * file rotated past keep. The truth comes from the files themselves ({@link LogFileWatch}): the
 * lines of the files deleted before Fluent Bit could read them, and of those it never tails (the
 * rotated files a restarted Fluent Bit does not match); each backend must show exactly those as
 * MISSING, in their windows, with their ids, and every other window OK. About 100 s of traffic
 * and waiting, besides the servers' start.
 */
class TailPipelineITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(2);

  private static final int RATE = 10;
  private static final int KEEP = 2;

  @TempDir static Path dir;
  private static FluentBit fb;
  private static LogFileWatch watch;
  private static AtomicReference<Printed> generated;

  @AfterAll
  static void stop() throws IOException {
    if (fb != null) {
      fb.close();
    }
    if (watch != null) {
      watch.close();
    }
  }

  @Test
  void everyOutputShowsExactlyTheLinesOfTheFilesFluentBitNeverRead() throws Exception {
    LokiServer loki = LokiServer.shared();
    VictoriaLogsServer vl = VictoriaLogsServer.shared();
    OpenSearchTestServer os = OpenSearchTestServer.get();
    String tenant = loki.tenant("tail-pipeline");
    String account = VictoriaLogsServer.tenant();
    String index = "fb-tail-" + System.nanoTime();
    Path log = dir.resolve("app").resolve("app.log");
    Files.createDirectories(log.getParent());
    fb = TailRig.start("tail", log, dir.resolve("tail.db"), loki.url(), tenant, "fb-tail", vl.url(), account,
        os.url(), index);
    Path runDir = dir.resolve("run");
    Path config = dir.resolve("tail.yaml");
    Files.writeString(config, String.join("\n",
        "name: tail-pipeline",
        "dataset: {kind: app-json, seed: 17, streams: 2}",
        "schedule: {kind: constant, rate: " + RATE + ", duration: 75s}",
        "timestamps: now",
        "batch: {lines: 20}",
        "window: 5s",
        "zone: UTC",
        "parallelism: 1",
        "run: {dir: '" + runDir + "'}",
        "visibility: {sample: 0}",
        "writes:",
        "  - {name: app, kind: file, path: '" + log + "', rotate: {size: 24KB, keep: " + KEEP + "}}",
        "backends:",
        "  - {kind: loki, url: '" + loki.url() + "', tenant: " + tenant + ", labels: {job: fb-tail}, write: app}",
        "  - {kind: victorialogs, url: '" + vl.url() + "', account_id: " + account + ", write: app}",
        "  - {kind: opensearch, url: '" + os.url() + "', index: " + index + ", write: app}",
        ""));
    generated = new AtomicReference<>();
    Thread generate = new Thread(() -> generated.set(Printed.run("generate", config.toString(), "--quiet")),
        "tail-pipeline-generate");
    generate.start();
    watch = new LogFileWatch(log);
    Supplier<String> writer = () -> {
      Printed g = generated.get();
      return g == null ? null : "generate ended: " + g.code() + "\n" + g.out() + "\n" + g.err();
    };

    // a restart within keep: Fluent Bit goes on from its offset in the file it was reading, or
    // reads from the head the file rotation started while it was down
    TailRig.awaitScanning(watch, () -> watch.lines() >= 8 * RATE, "lines for 8 s", writer);
    // just after a rotation, so the file has room for the batches of the restart (Fluent Bit 5.1.1
    // takes about 3 s to stop with grace 1, and reads no rotated file once started again)
    TailRig.awaitRotation(watch, writer);
    long readBefore = 0;
    long stopped = TailRig.quietStop(fb, watch, readBefore, writer);
    // the truth of this restart: lines written after the stop into a file rotated away before
    // Fluent Bit opened the file at its path (none when it opened the file it was reading, which
    // the room left in that file makes the rule on a machine that is not overloaded); its metrics
    // count from this start, without the lines it never read
    long firstLastRead = watch.lastSeq();
    LogFileWatch.Seen firstOpened = TailRig.startAgain(fb, watch, writer);
    readBefore = stopped + TailRig.neverRead(watch, firstOpened, firstLastRead).size();

    // stopped while the file rotates past keep
    TailRig.awaitScanning(watch, () -> watch.lines() >= 20 * RATE, "lines for 20 s", writer);
    stopped = TailRig.quietStop(fb, watch, readBefore, writer);
    long lastRead = watch.lastSeq();
    for (int i = 0; i < KEEP + 1; i++) {
      TailRig.awaitRotation(watch, writer);
    }
    TailRig.awaitRotation(watch, writer);
    LogFileWatch.Seen restartFile = TailRig.startAgain(fb, watch, writer);
    TailRig.awaitScanning(watch, () -> generated.get() != null, "the end of generate", writer);
    generate.join();
    watch.scan();
    Printed g = generated.get();
    assertThat(g.code()).as("%s%n%s", g.out(), g.err()).isZero();

    // the truth: lines written after the second stop into files other than the one Fluent Bit
    // started on (and any the first restart lost)
    TreeSet<Long> lost = TailRig.neverRead(watch, restartFile, lastRead);
    long total = watch.lines();
    assertThat(total).as("lines in the files: %s", watch).isEqualTo(75L * RATE);
    assertThat(lost).as("lines lost: %s", watch).isNotEmpty();
    long toShip = total - stopped;
    long read = total - stopped - lost.size();
    lost.addAll(TailRig.neverRead(watch, firstOpened, firstLastRead));
    TailRig.await(() -> TailRig.read(fb) >= read && TailRig.outputsDone(fb.metrics(), read),
        Duration.ofSeconds(60), "Fluent Bit shipping its " + read + " of " + toShip + " lines since its restart: "
        + fb.metrics() + "\n" + fb.log(), writer);

    Printed v = Printed.run("verify", config.toString(), "--max-wait", "15s", "--recheck", "1s", "--quiet");
    assertThat(v.code()).as("%s%n%s", v.out(), v.err()).isEqualTo(1);
    RunPlan plan = RunPlan.of(ConfigLoader.load(config));
    ExpectedCounts expected = plan.expectedCounts(VerifyPlan.runJson(runDir).get("runStartMillis").asLong());
    CsvTable verdicts = CsvTable.read(runDir.resolve("verdicts.csv"));
    CsvTable missing = CsvTable.read(runDir.resolve("missing.csv"));
    for (String backend : List.of("loki", "victorialogs", "elasticsearch")) {
      Map<Long, TreeSet<Long>> listed = new TreeMap<>();
      for (List<String> row : missing.rows()) {
        if (missing.get(row, "backend").equals(backend) && missing.get(row, "kind").equals("missing")) {
          listed.computeIfAbsent(millis(missing.get(row, "window_start")), k -> new TreeSet<>())
              .add(Long.parseLong(missing.get(row, "seq")));
        }
      }
      List<String> wrong = new ArrayList<>();
      int windows = 0;
      for (List<String> row : verdicts.rows()) {
        if (!verdicts.get(row, "backend").equals(backend)) {
          continue;
        }
        windows++;
        long start = millis(verdicts.get(row, "window_start"));
        long end = millis(verdicts.get(row, "window_end"));
        long first = plan.firstIndex() + expected.countBefore(start);
        long last = plan.firstIndex() + expected.countBefore(end);
        TreeSet<Long> want = new TreeSet<>(lost.subSet(first, last));
        String status = verdicts.get(row, "status");
        String wantStatus = want.isEmpty() ? "OK" : "MISSING";
        TreeSet<Long> got = listed.getOrDefault(start, new TreeSet<>());
        if (!status.equals(wantStatus) || !got.equals(want)
            || Long.parseLong(verdicts.get(row, "acked")) != last - first) {
          wrong.add(row + " expected " + wantStatus + " missing " + want + ", listed " + got);
        }
      }
      assertThat(windows).as("%s windows", backend).isGreaterThanOrEqualTo(15);
      assertThat(wrong).as("%s: %d lines lost in the files %s%n%s%nFluent Bit's warnings and errors:%n%s", backend,
          lost.size(), watch, v.out(), fb.problems(30)).isEmpty();
    }
  }

  private static long millis(String isoTime) {
    return OffsetDateTime.parse(isoTime).toInstant().toEpochMilli();
  }
}
