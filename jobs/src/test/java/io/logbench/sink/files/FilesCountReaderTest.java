package io.logbench.sink.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.count.CountReader;
import io.logbench.layout.ChunkWriter;
import io.logbench.layout.FileChunk;
import io.logbench.layout.SeedLayout.LayoutFile;
import io.logbench.layout.SeedLayout;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.sink.RunContext;
import io.logbench.testing.BoundaryLines;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FilesCountReader} on day files written as the {@code dataset} command writes them
 * ({@link SeedLayout} and {@link ChunkWriter}): counts per window equal {@link ExpectedCounts},
 * and a line deleted from a file is exactly one missing in its window.
 */
class FilesCountReaderTest {

  private static final long MINUTE = 60_000;

  @TempDir Path dir;

  private static RunPlan plan(String yaml) {
    RunConfig config = ConfigLoader.parse(yaml, "test");
    return RunPlan.of(config);
  }

  /** Writes the plan's lines in the seed layout, as the dataset command does (without Flink). */
  private List<LayoutFile> write(RunPlan plan) throws IOException {
    long first = plan.dataset().timestampMillis(plan.firstIndex());
    long last = plan.dataset().timestampMillis(plan.firstIndex() + plan.lines() - 1);
    long from = Math.floorDiv(first, MINUTE) * MINUTE;
    long until = (Math.floorDiv(last, MINUTE) + 1) * MINUTE;
    List<LayoutFile> files = SeedLayout.plan(plan.dataset(), plan.config().zone(), from, until, 20_000);
    ChunkWriter writer = new ChunkWriter(plan.dataset(), dir);
    for (LayoutFile f : files) {
      try (RandomAccessFile raf = new RandomAccessFile(dir.resolve(f.name()).toFile(), "rw")) {
        raf.setLength(f.size());
      }
      for (FileChunk c : f.chunks()) {
        writer.write(c);
      }
    }
    return files;
  }

  /** Removes the {@code n}-th non-empty line (from 0) of {@code file}; returns it. */
  private String deleteLine(String file, long n) throws IOException {
    Path path = dir.resolve(file);
    Path copy = dir.resolve(file + ".tmp");
    String deleted = null;
    try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8);
        BufferedWriter out = Files.newBufferedWriter(copy, StandardCharsets.UTF_8)) {
      String line;
      long k = 0;
      boolean firstOut = true;
      while ((line = in.readLine()) != null) {
        if (!line.isEmpty() && k++ == n) {
          deleted = line;
          continue;
        }
        out.write((firstOut ? "" : "\n") + line);
        firstOut = false;
      }
    }
    Files.move(copy, path, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return deleted;
  }

  @Test
  void nginxCountsPerWindowEqualTheExpectedCountsAcrossADayChange() throws Exception {
    RunPlan plan =
        plan("dataset:\n  kind: nginx-month\n  mode: fast\n  seed: 8\n"
            + "  from: \"2021-05-01T23:57:00-03:00\"\n  until: \"2021-05-02T00:03:00-03:00\"\n"
            + "schedule:\n  kind: max\ntimestamps: original\nwindow: 1m\nzone: America/Sao_Paulo\n");
    List<LayoutFile> files = write(plan);
    assertThat(files).extracting(LayoutFile::name).containsExactly("2021-05-01.log", "2021-05-02.log");
    ExpectedCounts expected = plan.expectedCounts(0);
    long[] span = plan.span(0);
    long from = Math.floorDiv(span[0], MINUTE) * MINUTE - 2 * MINUTE;
    long to = from + 10 * MINUTE;
    FilesBackend backend = new FilesBackend("files", dir.toString());
    try (CountReader reader = backend.openCounter(RunContext.of(plan.dataset(), plan.firstIndex()))) {
      long[] perMinute = reader.counts(from, to, MINUTE);
      assertThat(perMinute).containsExactly(expected.perWindow(from, to, MINUTE));
      assertThat(LongStream.of(perMinute).sum()).isEqualTo(plan.lines());
      assertThat(perMinute[0]).isZero();
      assertThat(reader.counts(from, from + 84 * 7_000, 7_000)).containsExactly(expected.perWindow(from, from + 84 * 7_000, 7_000));

      // positional ids: the run's lines in order
      long w = from + 5 * MINUTE;
      List<Long> ids = reader.sequenceIds(w, w + MINUTE, Integer.MAX_VALUE);
      long firstInWindow = plan.firstIndex() + expected.count(span[0], w);
      assertThat(ids).hasSize((int) expected.count(w, w + MINUTE)).startsWith(firstInWindow, firstInWindow + 1);
      assertThat(ids.get(ids.size() - 1)).isEqualTo(firstInWindow + ids.size() - 1);
      assertThat(reader.sequenceIds(w, w + MINUTE, 3)).containsExactly(firstInWindow, firstInWindow + 1, firstInWindow + 2);
    }
    // the files backend block alone reads the time field with the offset the lines carry
    try (CountReader reader = backend.openCounter(RunContext.of(plan.dataset().streams()))) {
      assertThat(reader.counts(from, to, MINUTE)).containsExactly(expected.perWindow(from, to, MINUTE));
    }

    // delete line 100 of the second day's file: 00:00 of May 2 loses exactly one line
    String deleted = deleteLine("2021-05-02.log", 100);
    assertThat(deleted).startsWith("{ \"time\":\"[02/May/2021:00:00:");
    try (CountReader reader = backend.openCounter(RunContext.of(plan.dataset(), plan.firstIndex()))) {
      long[] after = reader.counts(from, to, MINUTE);
      long[] before = expected.perWindow(from, to, MINUTE);
      int midnight = (int) ((plan.dataset().timestampMillis(plan.firstIndex()) + 3 * MINUTE - from) / MINUTE);
      for (int k = 0; k < before.length; k++) {
        assertThat(after[k]).as("window %d", k).isEqualTo(before[k] - (k == midnight ? 1 : 0));
      }
    }
  }

  /**
   * Regression: with {@code now} timestamps the ledger counts each line at its send time, while
   * the files hold the dataset's lines; the reader counted them by the dataset's own time, so every
   * window of such a run verified as MISSING.
   */
  @Test
  void withNowTimestampsLinesCountAtTheTimeTheyCarriedInTheRun() throws Exception {
    RunPlan plan =
        plan("dataset:\n  kind: app-json\n  seed: 0\n  lines: 3000\n  rate: 1000\n  streams: 20\n"
            + "schedule:\n  kind: constant\n  rate: 500\ntimestamps: now\nwindow: 1m\nzone: UTC\n");
    write(plan);
    long runStart = 1_800_000_000_000L + 12_345; // a run long after the dataset's own times
    ExpectedCounts expected = plan.expectedCounts(runStart);
    long[] span = plan.span(runStart);
    long from = Math.floorDiv(span[0], 1_000) * 1_000;
    long to = from + 8_000;
    FilesBackend backend = new FilesBackend("files", dir.toString());
    RunContext run = RunContext.of(plan.dataset(), plan.firstIndex()).withTimes(expected);
    try (CountReader reader = backend.openCounter(run)) {
      long[] perSecond = reader.counts(from, to, 1_000);
      assertThat(perSecond).containsExactly(expected.perWindow(from, to, 1_000));
      assertThat(LongStream.of(perSecond).sum()).isEqualTo(3_000);
    }
    // without the run's timeline the same files count at the dataset's own (earlier) times
    try (CountReader reader = backend.openCounter(RunContext.of(plan.dataset(), plan.firstIndex()))) {
      assertThat(LongStream.of(reader.counts(from, to, 1_000)).sum()).isZero();
    }
  }

  @Test
  void appJsonLinesAreTimedByTheirSeqAndALostLineIsMissingInItsWindow() throws Exception {
    RunPlan plan =
        plan("dataset:\n  kind: app-json\n  seed: 0\n  lines: 5000\n  rate: 1000\n  streams: 20\n"
            + "schedule:\n  kind: max\ntimestamps: original\nwindow: 1m\nzone: UTC\n");
    write(plan);
    ExpectedCounts expected = plan.expectedCounts(0);
    long[] span = plan.span(0);
    long from = Math.floorDiv(span[0], 1_000) * 1_000 - 1_000;
    long to = from + 8_000;
    FilesBackend backend = new FilesBackend("files", dir.toString());
    try (CountReader reader = backend.openCounter(RunContext.of(plan.dataset(), plan.firstIndex()))) {
      assertThat(reader.counts(from, to, 1_000)).containsExactly(expected.perWindow(from, to, 1_000));
      assertThat(LongStream.of(reader.counts(from, to, 1_000)).sum()).isEqualTo(5_000);
    }
    String file = Files.list(dir).map(p -> p.getFileName().toString()).sorted().findFirst().orElseThrow();
    String deleted = deleteLine(file, 2_345);
    assertThat(deleted).endsWith("\"seq\":2345}");
    long lostAt = plan.dataset().timestampMillis(2_345);
    long window = from + Math.floorDiv(lostAt - from, 1_000) * 1_000;
    try (CountReader reader = backend.openCounter(RunContext.of(plan.dataset(), plan.firstIndex()))) {
      long[] after = reader.counts(from, to, 1_000);
      long[] before = expected.perWindow(from, to, 1_000);
      for (int k = 0; k < before.length; k++) {
        assertThat(after[k]).as("window %d", k).isEqualTo(before[k] - (from + k * 1_000L == window ? 1 : 0));
      }
      List<Long> expectedIds = new ArrayList<>();
      for (long seq = 0; seq < 5_000; seq++) {
        long t = plan.dataset().timestampMillis(seq);
        if (t >= window && t < window + 1_000 && seq != 2_345) {
          expectedIds.add(seq);
        }
      }
      assertThat(reader.sequenceIds(window, window + 1_000, 10_000)).containsExactlyElementsOf(expectedIds);
    }
    try (CountReader reader = backend.openCounter(RunContext.of(plan.dataset().streams()))) {
      assertThatThrownBy(() -> reader.counts(from, to, 1_000))
          .isInstanceOf(IOException.class)
          .hasMessage("Line 1 of " + dir.resolve(file) + " is an app-json line: it carries no time, and this"
              + " reader was opened without the run's dataset to find the time of its seq.");
    }
  }

  @Test
  void minutesHoursAndDaysOfSaoPauloCountEveryBoundaryLineInItsWindow() throws Exception {
    BoundaryLines lines = new BoundaryLines();
    // app-json-like lines timed by their seq, in the seed layout as the files backend writes it
    Path seqDir = dir.resolve("by-seq");
    Files.createDirectories(seqDir);
    List<LayoutFile> files = SeedLayout.plan(lines, BoundaryLines.ZONE, BoundaryLines.FROM, BoundaryLines.TO, 20_000);
    assertThat(files).extracting(LayoutFile::name).containsExactly("2021-05-01.log", "2021-05-02.log");
    ChunkWriter writer = new ChunkWriter(lines, seqDir);
    for (LayoutFile f : files) {
      try (RandomAccessFile raf = new RandomAccessFile(seqDir.resolve(f.name()).toFile(), "rw")) {
        raf.setLength(f.size());
      }
      for (FileChunk c : f.chunks()) {
        writer.write(c);
      }
    }
    // nginx lines at the same times, timed by their time field (local time, -0300)
    Path nginxDir = dir.resolve("nginx");
    Files.createDirectories(nginxDir);
    java.time.format.DateTimeFormatter time =
        java.time.format.DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss.SSS Z", java.util.Locale.ROOT);
    StringBuilder[] days = {new StringBuilder(), new StringBuilder()};
    for (long i = 0; i < lines.size(); i++) {
      long t = lines.timestampMillis(i);
      StringBuilder day = days[(int) ((t - BoundaryLines.FROM) / BoundaryLines.DAY)];
      day.append(day.length() == 0 ? "" : "\n").append("{ \"time\":\"[")
          .append(java.time.Instant.ofEpochMilli(t).atZone(BoundaryLines.ZONE).format(time))
          .append("]\", \"path\":\"page").append(i).append("\", \"status\":\"200\" }");
    }
    Files.writeString(nginxDir.resolve("2021-05-01.log"), days[0]);
    Files.writeString(nginxDir.resolve("2021-05-02.log"), days[1]);
    assertThat(days[1].toString()).startsWith("{ \"time\":\"[02/May/2021:00:00:00.000 -0300]\"");

    for (Duration size : BoundaryLines.SIZES) {
      long[] expected = lines.expected(size.toMillis());
      try (CountReader bySeq = new FilesBackend("files", seqDir.toString()).openCounter(RunContext.of(lines, 0));
          CountReader byTime = FilesCountReader.builder().dir(nginxDir).build()) {
        assertThat(bySeq.counts(BoundaryLines.FROM, BoundaryLines.TO, size.toMillis())).as("%s by seq", size)
            .containsExactly(expected);
        assertThat(byTime.counts(BoundaryLines.FROM, BoundaryLines.TO, size.toMillis())).as("%s by time", size)
            .containsExactly(expected);
      }
    }
  }

  @Test
  void aMissingDirectoryOrAForeignLineIsAnIOException() throws Exception {
    Path missing = dir.resolve("nothing-here");
    try (CountReader reader = FilesCountReader.builder().dir(missing).build()) {
      assertThatThrownBy(() -> reader.counts(0, 60_000, 60_000))
          .isInstanceOf(IOException.class)
          .hasMessage("The files backend's directory " + missing + " does not exist.");
    }
    Files.writeString(dir.resolve("2021-05-01.log"), "\nsomething else\n");
    try (CountReader reader = FilesCountReader.builder().dir(dir).build()) {
      assertThatThrownBy(() -> reader.counts(0, 60_000, 60_000))
          .isInstanceOf(IOException.class)
          .hasMessage("Line 2 of " + dir.resolve("2021-05-01.log") + " is neither an nginx-month line (a time"
              + " field) nor an app-json line (a seq field).");
    }
  }
}
