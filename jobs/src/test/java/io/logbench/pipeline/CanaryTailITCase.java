package io.logbench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.canary.CanaryFiles;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.sink.loki.LokiServer;
import io.logbench.sink.victorialogs.VictoriaLogsServer;
import io.logbench.testing.ChildLogbench;
import io.logbench.testing.FluentBit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tail pipeline of {@link TailPipelineITCase} under {@code canary}, as a user runs it (a
 * child JVM from the built jar, stopped with SIGTERM): logbench writes the app's log file (rotated
 * by size, keep 1), the real Fluent Bit tails it into the real Loki, the real VictoriaLogs and the
 * in-JVM OpenSearch, and the canary verifies each output window by window (5 s windows, 10
 * lines/s) while it runs. Fluent Bit is restarted once within keep, and stopped once while the
 * file rotates past keep, then started again. The truth comes from the rotated files themselves
 * ({@link LogFileWatch}): every window the canary settled on each of the three is OK, except those
 * holding lines of the files Fluent Bit never read, which are MISSING with exactly those ids; the
 * restart within keep shows nothing (unless the file rotated before Fluent Bit, started again,
 * opened it: which file it opened is read from its log, by inode, and such lines are MISSING too). Then the canary is stopped (SIGTERM, a savepoint) and started
 * again: the time it was down is a gap of ids no file holds, and the windows after it are counted
 * by id as before (OK; REPLAYED only for ids the files hold twice). About 2 minutes 10 s of canary
 * traffic, 150 s with the servers' start.
 */
class CanaryTailITCase {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int RATE = 10;
  private static final int KEEP = 1;
  /** Lines of a file (of about 50) at the restart's stop that leave it room for 3 s of batches. */
  private static final int ROOMY_LINES = 20;
  private static final List<String> BACKENDS = List.of("loki", "vl", "os");

  @TempDir Path dir;
  private FluentBit fb;
  private LogFileWatch watch;
  private ChildLogbench canary;

  @AfterEach
  void stop() throws IOException {
    if (canary != null) {
      canary.close();
    }
    if (fb != null) {
      fb.close();
    }
    if (watch != null) {
      watch.close();
    }
  }

  @Test
  void everySettledWindowIsOkButThoseOfTheLinesFluentBitNeverReadWhichAreMissingOnAllThree() throws Exception {
    LokiServer loki = LokiServer.shared();
    VictoriaLogsServer vl = VictoriaLogsServer.shared();
    OpenSearchTestServer os = OpenSearchTestServer.get();
    String tenant = loki.tenant("canary-tail");
    String account = VictoriaLogsServer.tenant();
    String index = "fb-canary-tail-" + System.nanoTime();
    Path log = dir.resolve("app").resolve("app.log");
    Files.createDirectories(log.getParent());
    fb = TailRig.start("canary-tail", log, dir.resolve("tail.db"), loki.url(), tenant, "fb-canary", vl.url(),
        account, os.url(), index);
    Path runDir = dir.resolve("run");
    Path config = dir.resolve("canary.yaml");
    Files.writeString(config, String.join("\n",
        "name: canary-tail",
        "dataset: {kind: app-json, seed: 17, streams: 2}",
        "schedule: {kind: constant, rate: " + RATE + "}",
        "batch: {lines: 10}",
        "window: 5s",
        "zone: UTC",
        "parallelism: 1",
        "run: {checkpoint_interval: 5s}",
        "visibility: {sample: 0}",
        // MISSING is final max_wait after a window's first count: longer than Fluent Bit is down
        "canary: {settle: 5s, max_wait: 40s, recheck: 2s, retention: 1d, spot_checks: {older_per_hour: 0}}",
        "writes:",
        "  - {name: app, kind: file, path: '" + log + "', rotate: {size: 16KB, keep: " + KEEP + "}}",
        "backends:",
        "  - {kind: loki, name: loki, url: '" + loki.url() + "', tenant: " + tenant
            + ", labels: {job: fb-canary}, write: app}",
        "  - {kind: victorialogs, name: vl, url: '" + vl.url() + "', account_id: " + account + ", write: app}",
        "  - {kind: opensearch, name: os, url: '" + os.url() + "', index: " + index + ", write: app}",
        ""));
    String[] args = {"canary", config.toString(), "--run-dir", runDir.toString(), "--status-every", "10s"};
    canary = ChildLogbench.start(dir.resolve("out"), "canary", args);
    Supplier<String> writer = () -> canary.isAlive() ? null : "canary ended:\n" + canary.output();
    watch = new LogFileWatch(log);

    // every output verifies while nothing goes wrong
    TailRig.awaitScanning(watch, () -> BACKENDS.stream().allMatch(b -> windows(runDir, b).stream()
        .filter(r -> r.get("status").asText().equals("OK")).count() >= 3), "three windows OK on all three", writer);

    // a restart within keep, just after a rotation (so the file has room for the restart's batches);
    // a quiet moment to stop at may come only batches after the rotation (a batch came while
    // Fluent Bit read), and then the file has too little room left: the stop waits for the next
    // rotation instead
    long stopped = -1;
    for (int tries = 0; stopped < 0; tries++) {
      assertThat(tries).as("a quiet moment with room in the file within 5 rotations: %s", watch).isLessThan(5);
      TailRig.awaitRotation(watch, writer);
      stopped = TailRig.quietStop(fb, watch, 0, writer, ROOMY_LINES);
    }
    // the truth of this restart: lines written after the stop into a file rotated away before
    // Fluent Bit opened the file at its path (none when it opened the file it was reading, which
    // the room left in that file makes the rule on a machine that is not overloaded)
    long firstLastRead = watch.lastSeq();
    LogFileWatch.Seen firstOpened = TailRig.startAgain(fb, watch, writer);
    // its metrics count from this start: lines never read are not in them
    long readBefore = stopped + TailRig.neverRead(watch, firstOpened, firstLastRead).size();

    // stopped while the file rotates past keep, then started again
    TailRig.awaitScanning(watch, () -> watch.lines() >= readBefore + 15 * RATE, "15 s of lines", writer);
    TailRig.quietStop(fb, watch, readBefore, writer);
    long lastRead = watch.lastSeq();
    for (int i = 0; i < KEEP + 1; i++) {
      TailRig.awaitRotation(watch, writer);
    }
    TailRig.awaitRotation(watch, writer);
    LogFileWatch.Seen restartFile = TailRig.startAgain(fb, watch, writer);

    // 10 s of lines after the start, then every window up to them settled on all three
    long last = watch.lastSeq() + 10 * RATE;
    TailRig.awaitScanning(watch, () -> watch.lastSeq() >= last, "10 s of lines after the start", writer);
    TreeSet<Long> lost = TailRig.neverRead(watch, restartFile, lastRead);
    assertThat(lost).as("lines lost after the second stop: %s", watch).isNotEmpty();
    assertThat(lost.first()).as("only after the second stop: %s", watch).isGreaterThan(lastRead);
    lost.addAll(TailRig.neverRead(watch, firstOpened, firstLastRead));
    TailRig.awaitScanning(watch, () -> BACKENDS.stream().allMatch(b -> settledThrough(runDir, b, null) > last),
        "every window through id " + last + " settled on all three", writer);
    canary.signal("TERM");
    assertThat(canary.waitFor(Duration.ofSeconds(60))).as(canary.output()).isZero();
    assertThat(canary.stdout()).contains("canary: stopped by SIGTERM with a savepoint");

    // started again from its savepoint: the time it was down is a gap of ids (never written), and
    // the windows after it are counted by id as before
    canary = ChildLogbench.start(dir.resolve("out"), "canary-again", args);
    TailRig.await(() -> gap(runDir) != null, Duration.ofSeconds(60), "the second start's gap in run.json", writer);
    long[] gap = gap(runDir);
    assertThat(gap[1]).as("a gap past the first life's lines").isGreaterThan(gap[0]);
    long through = gap[1] + 10 * RATE;
    TailRig.awaitScanning(watch, () -> BACKENDS.stream().allMatch(b -> settledThrough(runDir, b, gap) > through),
        "every window through id " + through + " settled on all three", writer);
    canary.signal("TERM");
    assertThat(canary.waitFor(Duration.ofSeconds(60))).as(canary.output()).isZero();
    assertThat(canary.stderr()).contains("canary: going on with run canary-tail-", "are a gap, never sent and not"
        + " expected");
    watch.scan();
    TreeSet<Long> truth = TailRig.neverRead(watch, restartFile, lastRead);
    truth.addAll(TailRig.neverRead(watch, firstOpened, firstLastRead));
    assertThat(truth).as("the truth, once the files are all in").isEqualTo(lost);
    assertThat(watch.files().stream().flatMap(f -> f.seqs.stream()).filter(q -> q >= gap[0] && q < gap[1]))
        .as("no line of the gap in the files").isEmpty();
    TreeSet<Long> again = watch.writtenAgain();

    for (String backend : BACKENDS) {
      List<JsonNode> windows = windows(runDir, backend).stream()
          .sorted(Comparator.comparingLong(r -> r.get("window_start_millis").asLong())).toList();
      assertThat(windows.stream().map(r -> r.get("window_start_millis").asLong()).distinct().count())
          .as(backend + ": one verdict a window").isEqualTo(windows.size());
      List<String> wrong = new ArrayList<>();
      long next = 0;
      int missing = 0;
      for (JsonNode r : windows) {
        long first = r.get("first_seq").asLong();
        long end = r.get("end_seq").asLong();
        long held = end - first - Math.max(0, Math.min(gap[1], end) - Math.max(gap[0], first));
        TreeSet<Long> want = new TreeSet<>(lost.subSet(first, end));
        boolean copies = !again.subSet(first, end).isEmpty();
        String status = r.get("status").asText();
        // a line the savepoint's restore wrote again is in the files twice: REPLAYED, and only then
        boolean statusRight = want.isEmpty() ? status.equals("OK") || copies && status.equals("REPLAYED")
            : status.equals("MISSING");
        TreeSet<Long> got = new TreeSet<>();
        r.path("missing_ids").forEach(id -> got.add(id.asLong()));
        boolean hole = first != next && !(next >= gap[0] && first <= gap[1]);
        if (hole || !statusRight || !got.equals(want) || r.get("acked").asLong() != held
            || r.get("expected").asLong() != held
            || !status.equals("REPLAYED") && r.get("observed").asLong() != held - want.size()) {
          wrong.add(r + " expected " + (want.isEmpty() ? "OK" : "MISSING") + " missing " + want
              + (hole ? " after " + next : ""));
        }
        missing += want.isEmpty() ? 0 : 1;
        next = end;
      }
      assertThat(wrong).as("%s: %d lines lost in the files %s, gap %d..%d; Fluent Bit's warnings and errors:%n%s",
          backend, lost.size(), watch, gap[0], gap[1], fb.problems(30)).isEmpty();
      assertThat(missing).as(backend + ": windows MISSING").isPositive();
      assertThat(next).as(backend + ": windows settled through").isGreaterThan(through);
    }
  }

  /** The second start's gap {@code [fromIndex, toIndex)} from run.json, or null before it. */
  private static long[] gap(Path runDir) {
    try {
      JsonNode gaps = JSON.readTree(runDir.resolve("run.json").toFile()).path("gaps");
      if (gaps.size() == 0) {
        return null;
      }
      JsonNode g = gaps.get(gaps.size() - 1);
      return new long[] {g.get("fromIndex").asLong(), g.get("toIndex").asLong()};
    } catch (IOException e) {
      return null; // being written
    }
  }

  /**
   * The end id of the contiguous run of windows {@code backend} settled from the first, 0 before
   * any; windows wholly in {@code gap} (null: none) have no verdict.
   */
  private static long settledThrough(Path runDir, String backend, long[] gap) {
    long next = 0;
    for (JsonNode r : windows(runDir, backend).stream()
        .sorted(Comparator.comparingLong(r -> r.get("window_start_millis").asLong())).toList()) {
      long first = r.get("first_seq").asLong();
      if (first != next && (gap == null || next < gap[0] || first > gap[1])) {
        break;
      }
      next = r.get("end_seq").asLong();
    }
    return next;
  }

  /** The window verdicts (not spot checks) of {@code backend} so far, in the order decided. */
  private static List<JsonNode> windows(Path runDir, String backend) {
    List<JsonNode> out = new ArrayList<>();
    try {
      for (Path f : CanaryFiles.dayFiles(runDir.resolve(CanaryFiles.VERDICTS).resolve(backend))) {
        for (String line : Files.readAllLines(f)) {
          if (line.endsWith("}")) {
            JsonNode r = JSON.readTree(line);
            if (r.get("check").asText().equals("window")) {
              out.add(r);
            }
          }
        }
      }
    } catch (IOException e) {
      // not there yet, or a file being written: read it again on the next poll
    }
    return out;
  }
}
