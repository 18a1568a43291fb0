package io.logbench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.canary.CanaryFiles;
import io.logbench.plan.RunConfig;
import io.logbench.sink.BackendConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code canary} prints while it runs, read from the verdict files the job writes (so the
 * printing costs the job nothing): every window or spot check that is not OK as it is decided,
 * and a status line every {@code every} (per backend: windows by verdict and spot checks since
 * this start, and the end of the newest window decided). One thread, reading only what was
 * appended since its last look, every {@value #POLL_MILLIS} ms.
 */
final class CanaryStatus implements AutoCloseable {

  static final long POLL_MILLIS = 2_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final PrintStream out;
  private final Duration every;
  private final Map<String, Tail> tails = new LinkedHashMap<>();
  private final Thread thread;
  private volatile boolean running = true;
  private long nextStatus;

  /** Where a backend's verdict files have been read up to, and what they said since the start. */
  private static final class Tail {
    final Path dir;
    Path file;
    long offset;
    final Map<String, Long> windows = new TreeMap<>();
    final Map<String, Long> spots = new TreeMap<>();
    String newestEnd = "-";

    Tail(Path dir) {
      this.dir = dir;
    }
  }

  private CanaryStatus(Path runDir, RunConfig config, Duration every, PrintStream out) throws IOException {
    this.out = out;
    this.every = every;
    for (BackendConfig b : config.backends()) {
      Tail t = new Tail(runDir.resolve(CanaryFiles.VERDICTS).resolve(b.name()));
      List<Path> files = CanaryFiles.dayFiles(t.dir);
      if (!files.isEmpty()) {
        // what earlier starts decided is not this start's to print
        t.file = files.get(files.size() - 1);
        t.offset = Files.size(t.file);
      }
      tails.put(b.name(), t);
    }
    nextStatus = every == null ? Long.MAX_VALUE : System.currentTimeMillis() + every.toMillis();
    thread = new Thread(this::loop, "logbench-canary-status");
    thread.setDaemon(true);
  }

  /** Starts following {@code runDir}'s verdict files; {@code every} null for no status lines. */
  static CanaryStatus start(Path runDir, RunConfig config, Duration every, PrintStream out) throws IOException {
    CanaryStatus s = new CanaryStatus(runDir, config, every, out);
    s.thread.start();
    return s;
  }

  private void loop() {
    while (running) {
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
      poll();
      if (System.currentTimeMillis() >= nextStatus) {
        out.println("canary: " + Instant.now().toString().substring(0, 19) + "Z: " + summary());
        nextStatus += every.toMillis();
      }
    }
  }

  private synchronized void poll() {
    for (Map.Entry<String, Tail> e : tails.entrySet()) {
      try {
        read(e.getKey(), e.getValue());
      } catch (IOException | RuntimeException ex) {
        // a file rolled away between listing and reading: the next poll reads on
      }
    }
  }

  private void read(String backend, Tail t) throws IOException {
    for (Path f : CanaryFiles.dayFiles(t.dir)) {
      if (t.file != null && f.compareTo(t.file) < 0) {
        continue;
      }
      if (!f.equals(t.file)) {
        t.file = f;
        t.offset = 0;
      }
      long size = Files.size(f);
      if (size <= t.offset) {
        continue;
      }
      byte[] bytes = new byte[(int) (size - t.offset)];
      try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "r")) {
        r.seek(t.offset);
        r.readFully(bytes);
      }
      String text = new String(bytes, StandardCharsets.UTF_8);
      int end = text.lastIndexOf('\n');
      if (end < 0) {
        continue;
      }
      t.offset += text.substring(0, end + 1).getBytes(StandardCharsets.UTF_8).length;
      for (String line : text.substring(0, end).split("\n")) {
        if (!line.isBlank()) {
          record(backend, t, JSON.readTree(line));
        }
      }
    }
  }

  private void record(String backend, Tail t, JsonNode r) {
    String status = r.path("status").asText();
    boolean spot = "spot".equals(r.path("check").asText());
    (spot ? t.spots : t.windows).merge(status, 1L, Long::sum);
    if (!spot) {
      t.newestEnd = r.path("window_end").asText();
    }
    if (!"OK".equals(status)) {
      StringBuilder b = new StringBuilder("canary: backend ").append(backend).append(": ").append(status)
          .append(spot ? " at the " + r.path("age").asText() + " spot check of " : " in ")
          .append(r.path("window_start").asText()).append(" to ").append(r.path("window_end").asText())
          .append(": ").append(r.path("detail").asText());
      if (r.has("missing_ids") && r.get("missing_ids").size() > 0) {
        List<String> ids = new ArrayList<>();
        r.get("missing_ids").forEach(id -> ids.add(id.asText()));
        b.append("; missing ids ").append(String.join(", ", ids))
            .append(r.path("missing_total").asLong() > ids.size() ? ", ..." : "");
      }
      out.println(b);
    }
  }

  /** Reads what is left, once the job has ended. */
  void finish() {
    running = false;
    thread.interrupt();
    poll();
  }

  /** Per backend: windows by verdict and spot checks since this start, and the newest window decided. */
  synchronized String summary() {
    List<String> parts = new ArrayList<>();
    tails.forEach((name, t) -> parts.add(name + ": " + counts(t.windows, "window") + ", " + counts(t.spots,
        "spot check") + ", newest window decided ends " + t.newestEnd));
    return String.join("; ", parts);
  }

  private static String counts(Map<String, Long> by, String what) {
    long n = by.values().stream().mapToLong(Long::longValue).sum();
    if (n == 0) {
      return "0 " + what + "s";
    }
    StringBuilder b = new StringBuilder().append(n).append(' ').append(what).append(n == 1 ? "" : "s").append(" (");
    by.forEach((s, k) -> b.append(b.charAt(b.length() - 1) == '(' ? "" : ", ").append(s).append(' ').append(k));
    return b.append(')').toString();
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
