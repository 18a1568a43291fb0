package io.logbench.sink.loki;

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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real Grafana Loki for the tests, beside {@link LokiEmulator}: the binary {@code
 * LOGBENCH_LOKI_BIN} started once per test JVM (monolithic, {@code target: all}) on free loopback
 * ports with its config, data and log in a temporary directory, or the Loki a user runs at {@code
 * LOGBENCH_LOKI_URL}. Without either, {@link #shared} skips the calling test, saying so.
 *
 * <p>Tests share the server and keep apart by tenant: the started Loki has {@code auth_enabled:
 * true}, and {@link #tenant} gives each caller a tenant of its own. Its config is the one
 * docs/backends/loki.md gives for old data (schema v13 with tsdb from 2020, {@code
 * reject_old_samples: false}, {@code query_store_max_look_back_period: -1}, structured metadata
 * on), with ingestion limits raised for load, and Loki's defaults elsewhere (chunk idle period,
 * max chunk age, {@code discover_service_name}, {@code discover_log_levels}). Tenants made with
 * {@link #tenant(Limits, String)} get Loki's own stricter limits through its runtime overrides:
 * old samples rejected after a week, a low ingestion rate, structured metadata disallowed.
 */
public final class LokiServer {

  public static final String BIN = "LOGBENCH_LOKI_BIN";
  public static final String URL = "LOGBENCH_LOKI_URL";

  /** Tenants of each kind of {@link Limits} the runtime overrides declare. */
  private static final int TENANTS_PER_LIMITS = 16;

  /** Per-tenant limits of the started Loki, from its runtime overrides file. */
  public enum Limits {
    /** The server's own limits: old samples accepted, ingestion limits raised. */
    DEFAULT(null),
    /** Loki's default age limit: {@code reject_old_samples: true}, {@code reject_old_samples_max_age: 168h}. */
    REJECT_OLD_SAMPLES("reject_old_samples: true\n    reject_old_samples_max_age: 168h"),
    /** {@code ingestion_rate_mb: 0.05} with a burst of 0.1 MB: pushes over it get 429. */
    LOW_RATE("ingestion_rate_mb: 0.05\n    ingestion_burst_size_mb: 0.1"),
    /** {@code allow_structured_metadata: false}. */
    NO_STRUCTURED_METADATA("allow_structured_metadata: false");

    private final String overrides;

    Limits(String overrides) {
      this.overrides = overrides;
    }

    String prefix() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  private static LokiServer shared;
  private static RuntimeException failed;

  private final String url;
  private final ExternalServer process;
  private final String version;
  private final AtomicInteger tenants = new AtomicInteger();
  private final AtomicInteger[] limited = new AtomicInteger[Limits.values().length];

  private LokiServer(String url, ExternalServer process) {
    this.url = url;
    this.process = process;
    for (int i = 0; i < limited.length; i++) {
      limited[i] = new AtomicInteger();
    }
    this.version = buildVersion();
  }

  /**
   * The JVM's Loki, started on the first call and stopped when the JVM ends; skips the calling
   * test when neither {@value #BIN} nor {@value #URL} is set.
   */
  public static synchronized LokiServer shared() {
    if (shared != null) {
      return shared;
    }
    if (failed != null) {
      throw failed;
    }
    String external = RealServers.url(URL);
    Path bin = RealServers.binary(BIN);
    if (external == null && bin == null) {
      throw RealServers.skip("Loki", "set " + BIN + " (a loki binary) or " + URL + " (a running Loki)");
    }
    try {
      shared = external != null ? new LokiServer(external, null) : start(bin);
    } catch (RuntimeException e) {
      failed = e;
      throw e;
    }
    RealServers.announce("Loki " + shared.version + " at " + shared.url
        + (external != null ? " (" + URL + ")" : " (" + BIN + ", data in " + shared.process.dir() + ")"));
    return shared;
  }

  private static LokiServer start(Path bin) {
    Path dir = ExternalServer.newDirectory("loki");
    int httpPort = Ports.free();
    int grpcPort = Ports.free();
    try {
      Files.writeString(dir.resolve("config.yaml"), config(dir, httpPort, grpcPort));
      Files.writeString(dir.resolve("overrides.yaml"), overrides());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ExternalServer p = ExternalServer.start("Loki", dir, List.of(bin.toString(), "-config.file=" + dir.resolve("config.yaml")));
    Runtime.getRuntime().addShutdownHook(new Thread(p::close, "loki-test-stop"));
    String url = "http://127.0.0.1:" + httpPort;
    HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    p.awaitReady(Duration.ofSeconds(120), () -> {
      HttpResponse<String> r = probe.send(HttpRequest.newBuilder(URI.create(url + "/ready"))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 && r.body().strip().equals("ready");
    });
    return new LokiServer(url, p);
  }

  static String config(Path dir, int httpPort, int grpcPort) {
    String data = dir.resolve("data").toString();
    return String.join("\n",
        "target: all",
        "auth_enabled: true",
        "server:",
        "  http_listen_address: 127.0.0.1",
        "  http_listen_port: " + httpPort,
        "  grpc_listen_address: 127.0.0.1",
        "  grpc_listen_port: " + grpcPort,
        "  log_level: warn",
        "  grpc_server_max_recv_msg_size: 104857600",
        "  grpc_server_max_send_msg_size: 104857600",
        "common:",
        "  path_prefix: " + data,
        "  instance_addr: 127.0.0.1",
        "  replication_factor: 1",
        "  ring:",
        "    instance_addr: 127.0.0.1",
        "    kvstore:",
        "      store: inmemory",
        "  storage:",
        "    filesystem:",
        "      chunks_directory: " + data + "/chunks",
        "      rules_directory: " + data + "/rules",
        "schema_config:",
        "  configs:",
        "    - from: 2020-01-01",
        "      store: tsdb",
        "      object_store: filesystem",
        "      schema: v13",
        "      index:",
        "        prefix: index_",
        "        period: 24h",
        "ingester:",
        // no readiness delay meant for rolling updates of a ring, and no sleep before exiting
        "  lifecycler:",
        "    min_ready_duration: 0s",
        "    final_sleep: 0s",
        // old lines still in the ingester's memory are visible to queries
        "  query_store_max_look_back_period: -1",
        "query_range:",
        "  cache_results: false",
        "limits_config:",
        "  reject_old_samples: false",
        "  allow_structured_metadata: true",
        "  ingestion_rate_mb: 1024",
        "  ingestion_burst_size_mb: 1024",
        "  per_stream_rate_limit: 512MB",
        "  per_stream_rate_limit_burst: 1024MB",
        "  max_global_streams_per_user: 100000",
        "  max_query_lookback: 0s",
        "runtime_config:",
        "  file: " + dir.resolve("overrides.yaml"),
        "compactor:",
        "  working_directory: " + data + "/compactor",
        "analytics:",
        "  reporting_enabled: false",
        "");
  }

  static String overrides() {
    StringBuilder b = new StringBuilder("overrides:\n");
    for (Limits l : Limits.values()) {
      if (l.overrides == null) {
        continue;
      }
      for (int i = 0; i < TENANTS_PER_LIMITS; i++) {
        b.append("  ").append(l.prefix()).append('-').append(i).append(":\n    ").append(l.overrides).append('\n');
      }
    }
    return b.toString();
  }

  /** Base URL, e.g. {@code http://127.0.0.1:41234}. */
  public String url() {
    return url;
  }

  /** The version the server reports ({@code /loki/api/v1/status/buildinfo}), e.g. {@code 3.4.6}. */
  public String version() {
    return version;
  }

  /** Whether this harness started the server (its files and limits are the test's), not a user's URL. */
  public boolean started() {
    return process != null;
  }

  /** A tenant no other caller of this JVM gets, with the server's own limits; {@code purpose} names it. */
  public String tenant(String purpose) {
    return "t" + tenants.incrementAndGet() + "-" + purpose.replaceAll("[^A-Za-z0-9_-]", "-");
  }

  /**
   * A tenant of its own with {@code limits}; skips the calling test when the server is a user's
   * (whose limits the test cannot set).
   */
  public String tenant(Limits limits, String purpose) {
    if (limits == Limits.DEFAULT) {
      return tenant(purpose);
    }
    if (!started()) {
      throw RealServers.skip("Loki with " + limits + " limits", "the Loki at " + URL
          + " is not this test's, so its per-tenant limits cannot be set; set " + BIN + " instead");
    }
    int i = limited[limits.ordinal()].getAndIncrement();
    if (i >= TENANTS_PER_LIMITS) {
      throw new IllegalStateException("More than " + TENANTS_PER_LIMITS + " tenants with " + limits
          + " limits asked for; raise TENANTS_PER_LIMITS in LokiServer.");
    }
    return limits.prefix() + "-" + i;
  }

  /** {@code method path} with {@code tenant}'s header (none when null). */
  public ExternalServer.Answer request(String method, String path, String tenant) {
    return ExternalServer.request(method, url + path,
        tenant == null ? java.util.Map.of() : java.util.Map.of("X-Scope-OrgID", tenant));
  }

  /** The server's {@code /metrics} page. */
  public String metrics() {
    return request("GET", "/metrics", null).body();
  }

  /** The sum of {@code metric}'s series whose labels include every {@code label="value"} given. */
  public double metric(String metric, String... labels) {
    return PrometheusText.sum(metrics(), metric, labels).orElse(0);
  }

  /**
   * The bytes of {@code tenant}'s chunk files in the started server's filesystem store: what it
   * has flushed, as files.
   */
  public long chunkFileBytes(String tenant) {
    if (!started()) {
      throw new IllegalStateException("The chunk files of a Loki at " + URL + " are not this test's to read.");
    }
    return ExternalServer.fileBytes(process.dir().resolve("data").resolve("chunks").resolve(tenant), p -> true);
  }

  private String buildVersion() {
    ExternalServer.Answer a = request("GET", "/loki/api/v1/status/buildinfo", null);
    var m = java.util.regex.Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"").matcher(a.body());
    return a.status() == 200 && m.find() ? m.group(1) : "(version unknown: buildinfo answered " + a.status() + ")";
  }

  /** The started server's log so far (empty for a user's server), for a failing test's message. */
  public String log() {
    return started() ? process.tail(60) : "";
  }

  @Override
  public String toString() {
    return "Loki " + version + " at " + url;
  }
}
