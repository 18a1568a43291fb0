package io.logbench.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.servers.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Fluent Bit, the log agent, for the tests that put one between logbench's write and its
 * count: the binary {@code LOGBENCH_FLUENTBIT_BIN} run with a YAML config of the test's pipeline
 * (its {@code pipeline:} section: inputs, filters, outputs, on ports the test chose with {@link
 * #freePort}), its monitoring server on a free loopback port, and its config, log and state (an
 * in_tail {@code db}, buffers) in a temporary directory of its own. Without the variable, {@link
 * #start} skips the calling test, saying so.
 *
 * <p>Each test starts its own (it starts in well under a second); {@link #stop} and {@link
 * #startAgain} stop it and start it again on the same directory, as an agent restarted on its
 * node would be (in_tail goes on from the offsets in its db); {@link #close} stops it for good and
 * deletes its directory.
 */
public final class FluentBit implements AutoCloseable {

  public static final String BIN = "LOGBENCH_FLUENTBIT_BIN";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern TAIL_OPENED = Pattern.compile("inotify_fs_add\\(\\): inode=([0-9]+)");

  private final Path bin;
  private final Path dir;
  private final String name;
  private final int httpPort;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private ExternalServer process;
  private String version;

  private FluentBit(Path bin, Path dir, String name, int httpPort) {
    this.bin = bin;
    this.dir = dir;
    this.name = name;
    this.httpPort = httpPort;
  }

  /** A port free on 127.0.0.1 now, for an input or output of the pipeline. */
  public static int freePort() {
    return Ports.free();
  }

  /**
   * Starts Fluent Bit with {@code pipeline}, the body of the config's {@code pipeline:} section
   * (indented by two spaces, as it goes under that key), and waits until its monitoring server
   * answers; {@code name} names it in messages and its directory.
   */
  public static FluentBit start(String name, String pipeline) {
    return start(name, "", pipeline);
  }

  /**
   * As {@link #start(String, String)}, with {@code parsers}, the body of the config's {@code
   * parsers:} section (indented by two spaces; Fluent Bit has no parser built in, so a test
   * defines those its pipeline names, such as {@code - name: json / format: json}).
   */
  public static FluentBit start(String name, String parsers, String pipeline) {
    Path bin = RealServers.binary(BIN);
    if (bin == null) {
      throw RealServers.skip("Fluent Bit", "set " + BIN + " (a fluent-bit binary)");
    }
    Path dir = ExternalServer.newDirectory("fluent-bit-" + name);
    FluentBit fb = new FluentBit(bin, dir, name, Ports.free());
    try {
      Files.writeString(dir.resolve("fluent-bit.yaml"), fb.config(parsers, pipeline));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    fb.startAgain();
    RealServers.announce("Fluent Bit " + fb.version + " (" + BIN + ")");
    return fb;
  }

  private String config(String parsers, String pipeline) {
    return String.join("\n",
        parsers.isBlank() ? "" : "parsers:\n" + parsers.stripTrailing(),
        "service:",
        "  flush: 1",
        // a stop flushes what it holds and waits at most 1 s for its outputs (5 s by default), so
        // a test's restarts are quick; every output here is on loopback
        "  grace: 1",
        // a retry comes 1 to 2 s after a failed flush (5 s to 2000 s by default), within a test's waits
        "  scheduler.base: 1",
        "  scheduler.cap: 2",
        "  log_level: info",
        "  http_server: on",
        "  http_listen: 127.0.0.1",
        "  http_port: " + httpPort,
        "  health_check: on",
        "  storage.path: " + dir.resolve("storage"),
        "pipeline:",
        pipeline.stripTrailing(),
        "");
  }

  /** Starts it (again) on its directory and config, and waits until it answers. */
  public synchronized void startAgain() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("Fluent Bit " + name + " is running already.");
    }
    process = ExternalServer.start("Fluent Bit " + name, dir,
        List.of(bin.toString(), "-c", dir.resolve("fluent-bit.yaml").toString()));
    process.awaitReady(Duration.ofSeconds(30), () -> {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + "/"))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        return false;
      }
      version = JSON.readTree(r.body()).path("fluent-bit").path("version").asText("(version unknown)");
      return true;
    });
  }

  /**
   * Stops it as its node would (SIGTERM: it flushes what it holds within its grace period), keeping
   * its directory; {@link #startAgain} starts it on the same state.
   */
  public synchronized void stop() {
    if (process != null) {
      process.stop();
    }
  }

  /** Waits until something listens on 127.0.0.1:{@code port} (an input of the pipeline). */
  public void awaitListening(int port) {
    process.awaitReady(Duration.ofSeconds(30), () -> {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return true;
      }
    });
  }

  private String base() {
    return "http://127.0.0.1:" + httpPort;
  }

  /** Its version, as its monitoring server says, e.g. {@code 5.1.1}. */
  public String version() {
    return version;
  }

  /** Its directory (config, log, state). */
  public Path dir() {
    return dir;
  }

  /** Its metrics ({@code /api/v1/metrics}): records and bytes per input and output, retries, errors. */
  public JsonNode metrics() {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + "/api/v1/metrics"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new UncheckedIOException("Fluent Bit " + name + " did not answer /api/v1/metrics: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The inode numbers its tail input opened, in order, over every start so far: Fluent Bit logs
   * {@code inotify_fs_add(): inode=N} (level info) for each file it starts to follow.
   */
  public List<Long> tailOpened() {
    List<Long> out = new ArrayList<>();
    if (process != null) {
      Matcher m = TAIL_OPENED.matcher(process.log());
      while (m.find()) {
        out.add(Long.parseLong(m.group(1)));
      }
    }
    return out;
  }

  /**
   * The warnings and errors of its log over every start so far (the last {@code max}), for a
   * failing test's message: an output that failed a flush, retried or gave a chunk up says so
   * there, and its metrics count only from the latest start.
   */
  public String problems(int max) {
    if (process == null) {
      return "";
    }
    List<String> lines = process.log().lines().filter(l -> l.contains("[error]") || l.contains("[ warn]")).toList();
    return lines.isEmpty() ? "(no warnings or errors in its log)"
        : String.join("\n", lines.subList(Math.max(0, lines.size() - max), lines.size()));
  }

  /** The end of its log, for a failing test's message. */
  public String log() {
    return process == null ? "" : process.tail(60);
  }

  @Override
  public synchronized void close() {
    if (process != null) {
      process.close();
    } else {
      ExternalServer.deleteTree(dir);
    }
  }
}
