package io.logbench.sink.victorialogs;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.config.Durations;
import io.logbench.dataset.StreamCatalog;
import io.logbench.http.BasicAuth;
import io.logbench.http.HttpUrls;
import io.logbench.http.TlsSettings;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Capabilities;
import io.logbench.sink.CommonSettings;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A VictoriaLogs backend block. Each line is sent to {@code /insert/jsonline} as one JSON object
 * {@code {"_time": <RFC 3339 with nanoseconds>, "_msg": <the raw line as a string>, <stream
 * labels>}}, with {@code _msg_field=_msg}, {@code _time_field=_time} and {@code _stream_fields}
 * naming the labels, so the stored message is the line byte for byte and the time is the line's
 * distinct nanosecond timestamp. Every row also carries the run's id as the field {@code
 * logbench_run}, not a stream field (the streams stay the dataset's), and counts filter by it.
 *
 * @param name backend name in reports (default {@code victorialogs})
 * @param url base URL, e.g. {@code http://127.0.0.1:9428}
 * @param accountId {@code AccountID} header, or null for the default tenant
 * @param projectId {@code ProjectID} header, or null for the default tenant
 * @param streamFields fields that make a stream, or null for the dataset's label names
 * @param retention the server's {@code -retentionPeriod}, to warn about lines it would drop
 * @param auth basic auth (password from env or file), or null
 * @param timeout request timeout of inserts
 * @param queryTimeout request timeout of count queries
 * @param tls how to trust an https URL and which client certificate to show (the {@code tls} block;
 *     senders only)
 */
public record VictoriaLogsBackend(
    String name,
    URI url,
    String accountId,
    String projectId,
    List<String> streamFields,
    Duration retention,
    BasicAuth auth,
    Duration timeout,
    Duration queryTimeout,
    TlsSettings tls,
    Format format)
    implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "victorialogs";
  public static final String DEFAULT_NAME = "victorialogs";
  /** VictoriaLogs' default {@code -retentionPeriod}. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

  public static final BackendType TYPE = BackendType.of(KIND, List.of("url", "account_id", "project_id",
      "stream_fields", "retention", "user", "password_env", "password_file", "tls", "format"),
      VictoriaLogsBackend::parse);

  /** How lines are inserted ({@code format}). */
  public enum Format {
    /** {@code /insert/jsonline}, one JSON object a line, with {@code _stream_fields}. */
    JSONLINE,
    /**
     * OTLP/HTTP logs in protobuf to {@code /insert/opentelemetry/v1/logs} ({@link
     * io.logbench.sink.otlp.OtlpPush}): VictoriaLogs 1.26.0 makes every resource attribute (the
     * stream's labels, {@code service.name}) a stream field, every log attribute ({@code
     * logbench_run}) a field, the body {@code _msg} and {@code time_unix_nano} {@code _time},
     * to the nanosecond (observed), so the jsonline counts work unchanged.
     */
    OTLP
  }

  public VictoriaLogsBackend {
    streamFields = streamFields == null ? null : List.copyOf(streamFields);
    tls = tls == null ? TlsSettings.DEFAULT : tls;
    format = format == null ? Format.JSONLINE : format;
  }

  /** A backend inserting jsonline. */
  public VictoriaLogsBackend(String name, URI url, String accountId, String projectId, List<String> streamFields,
      Duration retention, BasicAuth auth, Duration timeout, Duration queryTimeout, TlsSettings tls) {
    this(name, url, accountId, projectId, streamFields, retention, auth, timeout, queryTimeout, tls, Format.JSONLINE);
  }

  /** A backend that trusts the JDK's CAs over https. */
  public VictoriaLogsBackend(String name, URI url, String accountId, String projectId, List<String> streamFields,
      Duration retention, BasicAuth auth, Duration timeout, Duration queryTimeout) {
    this(name, url, accountId, projectId, streamFields, retention, auth, timeout, queryTimeout, TlsSettings.DEFAULT);
  }

  /** Reads the keys of a {@code kind: victorialogs} block. */
  static VictoriaLogsBackend parse(ConfigNode block, CommonSettings common) {
    URI url = url(block);
    String account = tenantId(block, "account_id");
    String project = tenantId(block, "project_id");
    List<String> fields = null;
    if (block.has("stream_fields")) {
      fields = new ArrayList<>();
      var raw = block.raw().get("stream_fields");
      if (!raw.isArray() || raw.isEmpty()) {
        throw block.invalid("stream_fields", raw.isArray() ? "an empty list" : raw.asText(),
            "a non-empty list of field names");
      }
      for (var f : raw) {
        if (!f.isTextual() || f.asText().isBlank()) {
          throw block.invalid("stream_fields", f.asText(), "a list of field names");
        }
        fields.add(f.asText());
      }
    }
    Duration retention = block.duration("retention", DEFAULT_RETENTION, false);
    BasicAuth auth = BasicAuth.parse(block);
    Format format = Format.valueOf(block.choice("format", "jsonline", "jsonline", "otlp").toUpperCase());
    if (format == Format.OTLP && fields != null) {
      throw block.invalid("stream_fields", String.join(",", fields), "no stream_fields with format: otlp (every"
          + " resource attribute, that is every stream label, is a stream field)");
    }
    return new VictoriaLogsBackend(common.name(), url, account, project, fields, retention, auth, common.timeout(),
        common.queryTimeout(), TlsSettings.parse(block), format);
  }

  private static String tenantId(ConfigNode block, String key) {
    long v = block.integer(key, -1, 0, 0xFFFFFFFFL, "a tenant id from 0 to 4294967295");
    return v < 0 ? null : Long.toString(v);
  }

  private static URI url(ConfigNode block) {
    // credentials belong in user/password_env, never in a URL that reports would print
    return URI.create(HttpUrls.baseUrl(block, "url", "http://127.0.0.1:9428"));
  }


  /**
   * Headers every request to this VictoriaLogs carries, insert and query alike: the tenant
   * (AccountID, ProjectID) and basic auth (the password is read here, when a task opens).
   */
  public java.util.Map<String, String> requestHeaders() {
    java.util.Map<String, String> headers = new java.util.LinkedHashMap<>();
    if (accountId != null) {
      headers.put("AccountID", accountId);
    }
    if (projectId != null) {
      headers.put("ProjectID", projectId);
    }
    if (auth != null) {
      headers.put("Authorization", auth.header(name));
    }
    return headers;
  }

  @Override
  public String kind() {
    return KIND;
  }

  /**
   * Counts back, the run's rows only; nginx lines' ids come from their nanosecond offsets, app-json
   * lines carry seq.
   */
  /** JSON lines carry each line as the {@code _msg} string; OTLP carries raw bytes. */
  @Override
  public boolean jsonStringLines() {
    return format == Format.JSONLINE;
  }

  @Override
  public Capabilities capabilities() {
    return Capabilities.countable(Capabilities.LineIds.NANOSECOND_OFFSET).withRunFilter(true);
  }

  /** The stream fields for lines of {@code streams}. */
  public List<String> streamFields(StreamCatalog streams) {
    return streamFields != null ? streamFields : streams.labelNames();
  }

  /** The insert endpoint with its parameters. */
  public URI insertUri(StreamCatalog streams) {
    String fields = String.join(",", streamFields(streams));
    return URI.create(url + "/insert/jsonline?_stream_fields="
        + URLEncoder.encode(fields, StandardCharsets.UTF_8) + "&_msg_field=_msg&_time_field=_time");
  }

  /**
   * A warning when lines are older than the retention: VictoriaLogs answers 200 and silently drops
   * them, so the run would look accepted and verify as lost; and one when rows of other runs are
   * in the run's time range ({@link Preflight#otherRuns}).
   */
  @Override
  public List<String> preflight(Preflight before) {
    List<String> all = new ArrayList<>(warnings(before.oldestLineMillis(), before.nowMillis()));
    all.addAll(before.otherRuns(this));
    return all;
  }

  public List<String> warnings(long oldestLineMillis, long nowMillis) {
    long age = nowMillis - oldestLineMillis;
    if (age <= retention.toMillis()) {
      return List.of();
    }
    return List.of(
        "Backend '" + name + "': the oldest line is from " + Instant.ofEpochMilli(oldestLineMillis)
            + ", " + Duration.ofMillis(age).toDays() + " days ago, older than the retention of "
            + Durations.format(retention) + "; VictoriaLogs answers 200 but silently drops rows"
            + " older than its -retentionPeriod, so start it with e.g. -retentionPeriod=100y and set"
            + " retention: 36500d here, or use timestamps: compressed or now.");
  }

  @Override
  public BatchSender open(RunContext run) {
    return VictoriaLogsSender.open(this, run);
  }

  /** A reader of the run's rows: the run's streams, and its id when it has one. */
  @Override
  public VictoriaLogsCountReader openCounter(RunContext run) {
    return new VictoriaLogsCountReader(this, run);
  }

  /** Counts behind a pipeline's write by the run and sequence ids in the lines ({@link VictoriaLogsSeqCounter}). */
  @Override
  public io.logbench.count.SeqCounter openSeqCounter(RunContext run) {
    return new VictoriaLogsSeqCounter(this, run.runId());
  }

  @Override
  public String seqCountUnavailable() {
    return null;
  }

  /** Counts every pending sample's nanoseconds in one LogsQL stats query a round, without blocking. */
  @Override
  public io.logbench.count.VisibilityProbe openProbe(RunContext run) {
    return new VictoriaLogsProbe(this, run);
  }

  /** Searches in LogsQL, {@code stats by (_time:<step>, <key>) count()}, the run's rows only. */
  @Override
  public VictoriaLogsSearch openSearch(RunContext run) {
    return new VictoriaLogsSearch(this, run);
  }

  /**
   * {@code vl_data_size_bytes} from the server's {@code /metrics}, every {@code type} ({@code
   * storage} and {@code indexdb}): the whole server's data on disk, every tenant and run.
   */
  @Override
  public java.util.Optional<io.logbench.sink.Footprint> footprint(RunContext run) throws java.io.IOException {
    try (VictoriaLogsCountReader r = openCounter(run)) {
      java.util.OptionalDouble bytes = io.logbench.http.PrometheusText.sum(r.metricsPage(), DATA_SIZE_METRIC);
      if (bytes.isEmpty()) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.of(new io.logbench.sink.Footprint((long) bytes.getAsDouble(),
          "VictoriaLogs " + DATA_SIZE_METRIC + " (storage and indexdb) from /metrics, the whole server"));
    }
  }

  /** The metric VictoriaLogs reports its data's size on disk by. */
  public static final String DATA_SIZE_METRIC = "vl_data_size_bytes";
}
