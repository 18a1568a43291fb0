package io.logbench.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import io.logbench.testing.FluentBit;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What the tail pipeline tests share ({@link TailPipelineITCase} for {@code generate}, {@link
 * CanaryTailITCase} for {@code canary}): the real Fluent Bit tailing logbench's rotating file into
 * Loki, VictoriaLogs and OpenSearch, stopping it at a quiet moment, waiting on the file's
 * rotations, and the truth from the files ({@link LogFileWatch}): which lines it never read.
 *
 * <p>Every wait polls a condition with a deadline. {@code writer} says whether the writing run
 * ended: null while it runs, else what it printed, for the messages of a wait that can no longer
 * succeed.
 */
final class TailRig {

  private TailRig() {}

  /**
   * Starts Fluent Bit tailing {@code log} (a {@code json} parser, offsets in {@code db}, from the
   * head of a file it does not know) and shipping every record to Loki (tenant {@code tenant},
   * label {@code job=<job>}, JSON lines), to VictoriaLogs ({@code /insert/jsonline} of account
   * {@code account}) and to the OpenSearch index {@code index}. Each output retries a failed flush
   * without limit (Fluent Bit gives a chunk up after one retry by default): a line lost in the
   * test's truth is one Fluent Bit never read, not one a slow backend made it drop.
   */
  static FluentBit start(String name, Path log, Path db, String lokiUrl, String tenant, String job, String vlUrl,
      String account, String osUrl, String index) {
    URI vl = URI.create(vlUrl);
    URI loki = URI.create(lokiUrl);
    URI os = URI.create(osUrl);
    return FluentBit.start(name, String.join("\n",
        "  - name: json",
        "    format: json"), String.join("\n",
        "  inputs:",
        "    - name: tail",
        "      tag: app",
        "      path: " + log,
        "      db: " + db,
        "      read_from_head: true",
        "      refresh_interval: 1",
        "      rotate_wait: 5",
        "      parser: json",
        "  outputs:",
        "    - name: loki",
        "      match: '*'",
        "      host: 127.0.0.1",
        "      port: " + loki.getPort(),
        "      tenant_id: " + tenant,
        "      labels: job=" + job,
        "      line_format: json",
        "      retry_limit: no_limits",
        "    - name: http",
        "      match: '*'",
        "      host: 127.0.0.1",
        "      port: " + vl.getPort(),
        "      uri: /insert/jsonline?_stream_fields=namespace,container&_msg_field=msg&_time_field=date",
        "      format: json_lines",
        "      json_date_key: date",
        "      json_date_format: iso8601",
        "      header: AccountID " + account,
        "      retry_limit: no_limits",
        "    - name: opensearch",
        "      match: '*'",
        "      host: 127.0.0.1",
        "      port: " + os.getPort(),
        "      index: " + index,
        "      suppress_type_name: on",
        "      retry_limit: no_limits"));
  }

  /** Whether each of the three outputs of {@code metrics} has sent {@code records} records. */
  static boolean outputsDone(JsonNode metrics, long records) {
    int outputs = 0;
    for (JsonNode o : metrics.path("output")) {
      outputs++;
      if (o.path("proc_records").asLong() < records) {
        return false;
      }
    }
    return outputs == 3;
  }

  /** Records Fluent Bit's tail input read since it started. */
  static long read(FluentBit fb) {
    return fb.metrics().path("input").path("tail.0").path("records").asLong();
  }

  /**
   * Stops Fluent Bit right after a batch was appended and it has read every line written so far,
   * so its offset is the end of the file: a batch appended after the SIGTERM is not read (Fluent
   * Bit pauses its inputs first, then flushes what it holds). {@code readBefore}: the lines
   * written before its latest start (its metrics count from there). Returns the lines written
   * when it stopped.
   */
  static long quietStop(FluentBit fb, LogFileWatch watch, long readBefore, Supplier<String> writer) {
    return quietStop(fb, watch, readBefore, writer, Integer.MAX_VALUE);
  }

  /**
   * As {@link #quietStop(FluentBit, LogFileWatch, long, Supplier)}, but only while the file being
   * written holds at most {@code maxLinesInFile}: past that it returns -1 and leaves Fluent Bit running.
   */
  static long quietStop(FluentBit fb, LogFileWatch watch, long readBefore, Supplier<String> writer,
      int maxLinesInFile) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      watch.scan();
      long lines = watch.lines();
      await(() -> {
        watch.scan();
        return watch.lines() > lines;
      }, Duration.ofSeconds(10), "a batch appended", writer);
      long written = watch.lines();
      await(() -> read(fb) >= written - readBefore, Duration.ofSeconds(5),
          "Fluent Bit reading " + (written - readBefore) + " lines", writer);
      watch.scan();
      if (watch.lines() == written) {
        if (watch.files().get(watch.files().size() - 1).seqs.size() > maxLinesInFile) {
          return -1;
        }
        fb.stop();
        return written;
      }
      // a batch came while Fluent Bit read: try after the next one
    }
    throw new AssertionError("Fluent Bit could not be stopped at a quiet moment within a minute.");
  }

  /** Scans until the file at the path is a new one (rotated); returns it. */
  static LogFileWatch.Seen awaitRotation(LogFileWatch watch, Supplier<String> writer) {
    LogFileWatch.Seen before = watch.scan();
    LogFileWatch.Seen[] now = new LogFileWatch.Seen[1];
    awaitScanning(watch, () -> {
      now[0] = watch.scan();
      return now[0] != null && now[0] != before;
    }, "a rotation", writer);
    return now[0];
  }

  /** Scans the files until {@code done}, failing at once if the writer ended first. */
  static void awaitScanning(LogFileWatch watch, BooleanSupplier done, String what, Supplier<String> writer) {
    await(() -> {
      watch.scan();
      String ended = writer.get();
      if (ended != null && !done.getAsBoolean()) {
        throw new AssertionError("The writer ended before " + what + ": " + ended);
      }
      return done.getAsBoolean();
    }, Duration.ofSeconds(90), what, writer);
  }

  /** Polls {@code done} until it holds; fails after {@code timeout} naming {@code what}. */
  static void await(BooleanSupplier done, Duration timeout, String what, Supplier<String> writer) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        String ended = writer.get();
        throw new AssertionError("Timed out after " + timeout.toSeconds() + " s waiting for " + what
            + (ended == null ? "" : "; the writer ended: " + ended));
      }
      try {
        Thread.sleep(20); // polling interval, not a wait for a result
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /**
   * Starts Fluent Bit again and returns the file its tail input opened first (by the inode its log
   * names, not by the time this call returns: on a busy machine the writer may rotate the file
   * between Fluent Bit's open and the test's next scan, which loses nothing).
   */
  static LogFileWatch.Seen startAgain(FluentBit fb, LogFileWatch watch, Supplier<String> writer) {
    int before = fb.tailOpened().size();
    fb.startAgain();
    await(() -> fb.tailOpened().size() > before, Duration.ofSeconds(30), "Fluent Bit's tail opening a file",
        writer);
    long ino = fb.tailOpened().get(before);
    watch.scan();
    LogFileWatch.Seen opened = watch.byIno(ino);
    if (opened == null) {
      throw new AssertionError("Fluent Bit opened inode " + ino + ", which no scan saw: " + watch);
    }
    return opened;
  }

  /**
   * The truth of a stop while the file rotated past keep: the lines written after the last line
   * Fluent Bit read ({@code lastRead}) into files other than the one it started on again ({@code
   * restartFile}), older than it. Observed on Fluent Bit 5.1.1: started again, it reads only the
   * file its path matches, so those are never read, deleted or not.
   */
  static TreeSet<Long> neverRead(LogFileWatch watch, LogFileWatch.Seen restartFile, long lastRead) {
    TreeSet<Long> lost = new TreeSet<>();
    for (LogFileWatch.Seen f : watch.files()) {
      if (f != restartFile && f.number < restartFile.number) {
        lost.addAll(f.seqs.tailSet(lastRead, false));
      }
    }
    return lost;
  }
}
