package io.logbench.sink.victorialogs;

import io.logbench.http.PrometheusText;
import io.logbench.servers.Ports;
import io.logbench.testing.RealServers;
import io.logbench.testing.ExternalServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real VictoriaLogs for the tests, beside {@link VictoriaLogsEmulator}: the binary {@code
 * LOGBENCH_VICTORIALOGS_BIN} on a free loopback port with its data and log in a temporary
 * directory, or the VictoriaLogs a user runs at {@code LOGBENCH_VICTORIALOGS_URL}. Without either,
 * {@link #shared} and {@link #start} skip the calling test, saying so.
 *
 * <p>{@link #shared} is started once per test JVM with {@code -retentionPeriod=100y} (lines of May
 * 2021 are kept), and tests keep apart by tenant ({@link #tenant}: an {@code AccountID} of their
 * own). {@link #start} starts one of the test's own with other flags (the default retention, for
 * lines older than it keeps), stopped by {@link #close}.
 */
public final class VictoriaLogsServer implements AutoCloseable {

  public static final String BIN = "LOGBENCH_VICTORIALOGS_BIN";
  public static final String URL = "LOGBENCH_VICTORIALOGS_URL";
  private static final Pattern VERSION = Pattern.compile("tags-(v[0-9][0-9.]*)");

  private static VictoriaLogsServer shared;
  private static RuntimeException failed;
  private static final AtomicLong ACCOUNTS = new AtomicLong(1000);

  private final String url;
  private final ExternalServer process;
  private final String version;

  private VictoriaLogsServer(String url, ExternalServer process, String version) {
    this.url = url;
    this.process = process;
    this.version = version;
  }

  /**
   * The JVM's VictoriaLogs ({@code -retentionPeriod=100y}), started on the first call and stopped
   * when the JVM ends; skips the calling test when neither {@value #BIN} nor {@value #URL} is set.
   */
  public static synchronized VictoriaLogsServer shared() {
    if (shared != null) {
      return shared;
    }
    if (failed != null) {
      throw failed;
    }
    String external = RealServers.url(URL);
    try {
      if (external != null) {
        shared = new VictoriaLogsServer(external, null, null);
        shared = new VictoriaLogsServer(external, null, shared.versionFromMetrics());
      } else {
        // in-memory parts reach the disk within a second (5 s by default), for tests of its files
        shared = startProcess(List.of("-retentionPeriod=100y", "-inmemoryDataFlushInterval=1s"));
        VictoriaLogsServer s = shared;
        Runtime.getRuntime().addShutdownHook(new Thread(s::close, "victorialogs-test-stop"));
      }
    } catch (RuntimeException e) {
      failed = e;
      throw e;
    }
    RealServers.announce("VictoriaLogs " + shared.version + " at " + shared.url
        + (external != null ? " (" + URL + ")" : " (" + BIN + ", data in " + shared.process.dir() + ")"));
    return shared;
  }

  /**
   * A VictoriaLogs of the caller's own, with {@code flags} besides its address and data path (e.g.
   * none, for the default 7-day retention); skips the calling test without {@value #BIN} (a user's
   * server at {@value #URL} cannot be started with other flags).
   */
  public static VictoriaLogsServer start(String... flags) {
    if (RealServers.binary(BIN) == null) {
      throw RealServers.skip("VictoriaLogs with flags " + List.of(flags), "set " + BIN + " (a victoria-logs binary)");
    }
    VictoriaLogsServer s = startProcess(List.of(flags));
    RealServers.announce("VictoriaLogs " + s.version + " (" + BIN + ") with " + String.join(" ", flags)
        + (flags.length == 0 ? "its default flags" : ""));
    return s;
  }

  private static VictoriaLogsServer startProcess(List<String> flags) {
    Path bin = RealServers.binary(BIN);
    if (bin == null) {
      throw RealServers.skip("VictoriaLogs", "set " + BIN + " (a victoria-logs binary) or " + URL
          + " (a running VictoriaLogs)");
    }
    Path dir = ExternalServer.newDirectory("victorialogs");
    int port = Ports.free();
    List<String> cmd = new ArrayList<>(List.of(bin.toString(), "-httpListenAddr=127.0.0.1:" + port,
        "-storageDataPath=" + dir.resolve("data"), "-loggerLevel=WARN"));
    cmd.addAll(flags);
    ExternalServer p = ExternalServer.start("VictoriaLogs", dir, cmd);
    String url = "http://127.0.0.1:" + port;
    HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    p.awaitReady(Duration.ofSeconds(60), () -> probe.send(HttpRequest.newBuilder(URI.create(url + "/health"))
        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    String version;
    try {
      Process v = new ProcessBuilder(bin.toString(), "-version").redirectErrorStream(true).start();
      String out = new String(v.getInputStream().readAllBytes()).strip();
      v.waitFor();
      Matcher m = VERSION.matcher(out);
      version = m.find() ? m.group(1) : out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return new VictoriaLogsServer(url, p, version);
  }

  private String versionFromMetrics() {
    Matcher m = VERSION.matcher(metrics());
    return m.find() ? m.group(1) : "(version unknown)";
  }

  /** Base URL, e.g. {@code http://127.0.0.1:41234}. */
  public String url() {
    return url;
  }

  /** Its version, e.g. {@code v1.26.0}. */
  public String version() {
    return version;
  }

  /** Whether this harness started the server (its files are the test's), not a user's URL. */
  public boolean started() {
    return process != null;
  }

  /** An {@code AccountID} no other caller of this JVM gets: a tenant of the caller's own. */
  public static String tenant() {
    return Long.toString(ACCOUNTS.incrementAndGet());
  }

  /** {@code GET path} (with its query), as the tenant {@code accountId} (the default tenant when null). */
  public ExternalServer.Answer get(String pathAndQuery, String accountId) {
    return get(url, pathAndQuery, accountId);
  }

  /** {@code GET url + path} (with its query) of any VictoriaLogs, or of its emulator. */
  public static ExternalServer.Answer get(String url, String pathAndQuery, String accountId) {
    return ExternalServer.request("GET", url + pathAndQuery,
        accountId == null ? java.util.Map.of() : java.util.Map.of("AccountID", accountId));
  }

  /** The server's {@code /metrics} page. */
  public String metrics() {
    return get("/metrics", null).body();
  }

  /** The sum of {@code metric}'s series whose labels include every {@code label="value"} given. */
  public double metric(String metric, String... labels) {
    return PrometheusText.sum(metrics(), metric, labels).orElse(0);
  }

  /**
   * Writes what the server holds in memory to its data files ({@code /internal/force_flush}), so
   * that every row is searchable and on disk.
   */
  public void forceFlush() {
    forceFlush(url);
  }

  /** {@link #forceFlush()} of any VictoriaLogs, or of its emulator. */
  public static void forceFlush(String url) {
    ExternalServer.Answer a = get(url, "/internal/force_flush", null);
    if (a.status() != 200) {
      throw new IllegalStateException("VictoriaLogs at " + url + " answered " + a.status()
          + " to /internal/force_flush: " + a.body());
    }
  }

  /**
   * Waits until no part is held in memory only ({@code vl_storage_parts{type="storage/inmemory"}}
   * 0): what {@code vl_data_size_bytes} counts is then in the data files.
   */
  public void awaitOnDisk(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (metric("vl_storage_parts", "type=\"storage/inmemory\"") > 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("VictoriaLogs still holds parts in memory after " + timeout.toSeconds() + " s.");
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** The bytes of the started server's data files (its storage and index parts). */
  public long dataFileBytes() {
    if (!started()) {
      throw new IllegalStateException("The files of a VictoriaLogs at " + URL + " are not this test's to read.");
    }
    return ExternalServer.fileBytes(process.dir().resolve("data"), p -> true);
  }

  /** The started server's log so far (empty for a user's server), for a failing test's message. */
  public String log() {
    return started() ? process.tail(60) : "";
  }

  /** Stops a server of the caller's own ({@link #start}) and deletes its data; the shared one stops with the JVM. */
  @Override
  public void close() {
    if (process != null && this != shared) {
      process.close();
    }
  }

  @Override
  public String toString() {
    return "VictoriaLogs " + version + " at " + url;
  }
}
