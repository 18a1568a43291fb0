package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.canary.CanaryFiles;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.testing.ChildLogbench;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code canary} as a user runs it, in a child JVM, into the real files backend and the
 * VictoriaLogs emulator (in this JVM; it keeps every copy, as VictoriaLogs does): it verifies
 * windows of 2 s, is killed with SIGKILL, stays down 3 s, is started again with the same run
 * directory, and stops on SIGTERM. No verdict of either life is MISSING, DUPLICATE, PENDING or
 * LOST: what the second life sent again is REPLAYED (or held once), and the time it was down is a
 * gap of the run's sequence ids, with no verdict for it. Meanwhile three lines of a window already
 * verified are deleted from both backends, and its spot check at 10 s of age finds them: LOST, with
 * their sequence ids. Costs about a minute (two JVM starts, about 40 s of canary time).
 */
class CanaryRestartITCase {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SEQ = Pattern.compile("\"seq\":(\\d+)}");

  @TempDir Path dir;

  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator();

  @AfterEach
  void stop() {
    vl.close();
  }

  @Test
  void killedAndStartedAgainItGoesOnWithoutAFalseVerdictAndASpotCheckFindsDeletedLines() throws Exception {
    Path config = dir.resolve("canary.yaml");
    Path logs = dir.resolve("logs");
    Files.writeString(config, String.join("\n",
        "name: restart",
        "dataset: {kind: app-json, streams: 2}",
        "schedule: {kind: constant, rate: 50}",
        "window: 2s",
        "batch: {lines: 5}",
        "parallelism: 2",
        "run: {checkpoint_interval: 1s}",
        "visibility: {sample: 0}",
        "canary: {settle: 2s, max_wait: 4s, recheck: 1s, retention: 1d,",
        "         spot_checks: {ages: [10s], older_per_hour: 0}}",
        "backends:",
        "  - {kind: files, name: files, dir: '" + logs + "'}",
        "  - {kind: victorialogs, name: vl, url: '" + vl.url() + "', timeout: 5s}",
        ""));
    Path runDir = dir.resolve("run");
    String[] args = {"canary", config.toString(), "--run-dir", runDir.toString(), "--status-every", "5s"};

    long killedAt;
    try (ChildLogbench first = ChildLogbench.start(dir.resolve("out"), "first", args)) {
      first.await("four windows verified on both backends", Duration.ofSeconds(90),
          () -> windows(runDir, "files").size() >= 4 && windows(runDir, "vl").size() >= 4);
      first.signal("KILL");
      first.waitFor(Duration.ofSeconds(30));
      killedAt = System.currentTimeMillis();
    }
    // the scenario's downtime, not a wait for a condition: the lines due meanwhile must become a gap
    Thread.sleep(3_000);

    try (ChildLogbench second = ChildLogbench.start(dir.resolve("out"), "second", args)) {
      second.await("a window after the restart verified on both backends", Duration.ofSeconds(90),
          () -> newest(runDir, "files") > killedAt + 4_000 && newest(runDir, "vl") > killedAt + 4_000);
      // three lines of a window verified on both after the gap (a window the gap cuts holds fewer
      // ids than its range), before its spot check at 10 s of age
      JsonNode gaps = JSON.readTree(runDir.resolve("run.json").toFile()).get("gaps");
      long afterGap = gaps.get(gaps.size() - 1).get("toIndex").asLong();
      second.await("a window after the gap verified on files", Duration.ofSeconds(20),
          () -> windows(runDir, "files").stream().anyMatch(r -> r.get("first_seq").asLong() >= afterGap));
      JsonNode w = windows(runDir, "files").stream().filter(r -> r.get("first_seq").asLong() >= afterGap)
          .findFirst().orElseThrow();
      long start = w.get("window_start_millis").asLong();
      second.await("window " + start + " verified on vl too", Duration.ofSeconds(20),
          () -> windows(runDir, "vl").stream().anyMatch(r -> r.get("window_start_millis").asLong() == start));
      long first = w.get("first_seq").asLong();
      Set<Long> deleted = Set.of(first + 1, first + 4, first + 7);
      assertThat(w.get("end_seq").asLong()).isGreaterThan(first + 7);
      assertThat(blankLines(logs, deleted)).isEqualTo(3);
      assertThat(vl.deleteWhere(r -> deleted.contains(seqOf(r.msg())))).isEqualTo(3);
      second.await("the spot checks of window " + start + " found the lines lost", Duration.ofSeconds(40),
          () -> lost(runDir, "files", start) != null && lost(runDir, "vl", start) != null);
      for (String backend : List.of("files", "vl")) {
        JsonNode l = lost(runDir, backend, start);
        assertThat(l.get("held_before").asLong()).as(backend).isEqualTo(w.get("expected").asLong());
        assertThat(l.get("observed").asLong()).as(backend).isEqualTo(w.get("expected").asLong() - 3);
        List<Long> ids = new ArrayList<>();
        l.get("missing_ids").forEach(id -> ids.add(id.asLong()));
        assertThat(ids).as(backend).containsExactlyInAnyOrderElementsOf(deleted);
        assertThat(l.get("detail").asText()).as(backend).startsWith("3 line(s) lost after they were stored");
      }
      second.await("the status lines", Duration.ofSeconds(20), () -> {
        try {
          return second.stdout().contains("LOST at the 10s spot check");
        } catch (IOException e) {
          return false;
        }
      });
      second.signal("TERM");
      assertThat(second.waitFor(Duration.ofSeconds(60))).as(second.output()).isZero();
      assertThat(second.stdout()).as(second.output()).contains("canary: stopped by SIGTERM with a savepoint");
      assertThat(second.stderr()).contains("canary: going on with run restart-", "are a gap, never sent and not"
          + " expected");
    }

    JsonNode run = JSON.readTree(runDir.resolve("run.json").toFile());
    assertThat(run.get("gaps")).hasSize(1);
    long gapFrom = run.get("gaps").get(0).get("fromIndex").asLong();
    long gapTo = run.get("gaps").get(0).get("toIndex").asLong();
    assertThat(gapTo).as("3 s down at 50 lines/s").isGreaterThan(gapFrom + 100);
    assertThat(run.get("stopped").get("signal").asText()).isEqualTo("SIGTERM");

    for (String backend : List.of("files", "vl")) {
      // in the order of their windows: a window that waits longer (REPLAYED, settling on extra
      // copies) is decided after later ones
      List<JsonNode> windows = windows(runDir, backend).stream()
          .sorted(java.util.Comparator.comparingLong(r -> r.get("window_start_millis").asLong())).toList();
      assertThat(windows).as(backend).hasSizeGreaterThan(8);
      assertThat(windows.stream().map(r -> r.get("window_start_millis").asLong()).distinct().count())
          .as(backend + ": one verdict a window").isEqualTo(windows.size());
      long next = windows.get(0).get("first_seq").asLong();
      assertThat(next).isZero();
      for (JsonNode r : windows) {
        assertThat(r.get("status").asText()).as(backend + ": " + r).isIn("OK", "REPLAYED");
        long firstSeq = r.get("first_seq").asLong();
        if (firstSeq != next) {
          // no verdict only for windows wholly in the gap: the time it was down
          assertThat(next).as(backend + ": a hole in the windows before " + r).isGreaterThanOrEqualTo(gapFrom);
          assertThat(firstSeq).as(backend + ": a hole in the windows before " + r).isLessThanOrEqualTo(gapTo);
        }
        long inGap = Math.max(0, Math.min(gapTo, r.get("end_seq").asLong()) - Math.max(gapFrom, firstSeq));
        assertThat(r.get("expected").asLong()).as(backend + ": " + r)
            .isEqualTo(r.get("end_seq").asLong() - firstSeq - inGap);
        next = r.get("end_seq").asLong();
      }
    }
    // the emulator holds no line of the gap, and every extra copy it holds is of a REPLAYED window
    Map<Long, Integer> copies = new HashMap<>();
    vl.rows().forEach(r -> copies.merge(seqOf(r.msg()), 1, Integer::sum));
    assertThat(copies.keySet()).noneMatch(s -> s >= gapFrom && s < gapTo);
    for (JsonNode r : windows(runDir, "vl")) {
      long extra = 0;
      for (long s = r.get("first_seq").asLong(); s < r.get("end_seq").asLong(); s++) {
        extra += Math.max(0, copies.getOrDefault(s, 0) - 1);
      }
      assertThat(r.get("status").asText()).as(r.toString()).isEqualTo(extra > 0 ? "REPLAYED" : "OK");
    }
    assertThat(runDir.resolve("restores.jsonl")).content().contains("\"kind\":\"source\"", "\"backend\":\"vl\"");
    // one job's checkpoints left, and one savepoint: restarts do not pile them up
    try (var s = Files.list(runDir.resolve("checkpoints"))) {
      assertThat(s.filter(p -> p.getFileName().toString().matches("[0-9a-f]{32}")).count()).isLessThanOrEqualTo(2);
    }
    try (var s = Files.list(runDir.resolve("checkpoints").resolve("savepoints"))) {
      assertThat(s.count()).isEqualTo(1);
    }
  }

  /** The window verdicts (not spot checks) of {@code backend} so far, in the order decided. */
  private static List<JsonNode> windows(Path runDir, String backend) {
    return records(runDir, backend).stream().filter(r -> r.get("check").asText().equals("window")).toList();
  }

  /** End of the newest window verified on {@code backend}, 0 before the first. */
  private static long newest(Path runDir, String backend) {
    List<JsonNode> w = windows(runDir, backend);
    return w.isEmpty() ? 0 : w.get(w.size() - 1).get("window_start_millis").asLong() + 2_000;
  }

  /** The LOST spot check of the window at {@code start}, or null. */
  private static JsonNode lost(Path runDir, String backend, long start) {
    return records(runDir, backend).stream().filter(r -> r.get("check").asText().equals("spot")
        && r.get("window_start_millis").asLong() == start && r.get("status").asText().equals("LOST"))
        .findFirst().orElse(null);
  }

  private static List<JsonNode> records(Path runDir, String backend) {
    List<JsonNode> out = new ArrayList<>();
    try {
      for (Path f : CanaryFiles.dayFiles(runDir.resolve(CanaryFiles.VERDICTS).resolve(backend))) {
        for (String line : Files.readAllLines(f)) {
          if (line.endsWith("}")) {
            out.add(JSON.readTree(line));
          }
        }
      }
    } catch (IOException e) {
      // a file being written: read it again on the next poll
    }
    return out;
  }

  private static long seqOf(String line) {
    Matcher m = SEQ.matcher(line);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /**
   * Deletes the lines of {@code seqs} from the files backend's day files in place: each becomes as
   * many newlines as it had bytes, so the file keeps its length (the canary appends at its own
   * offsets) and the reader, which skips empty lines, no longer counts it.
   */
  private static int blankLines(Path logs, Set<Long> seqs) throws IOException {
    int n = 0;
    List<Path> days;
    try (var s = Files.list(logs)) {
      days = s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
    }
    for (Path day : days) {
      byte[] bytes = Files.readAllBytes(day);
      try (RandomAccessFile f = new RandomAccessFile(day.toFile(), "rw")) {
        int lineStart = 0;
        for (int i = 0; i < bytes.length; i++) {
          if (bytes[i] != '\n') {
            continue;
          }
          String line = new String(bytes, lineStart, i - lineStart, StandardCharsets.UTF_8);
          if (seqs.contains(seqOf(line))) {
            f.seek(lineStart);
            f.write("\n".repeat(i - lineStart).getBytes(StandardCharsets.US_ASCII));
            n++;
          }
          lineStart = i + 1;
        }
      }
    }
    return n;
  }
}
