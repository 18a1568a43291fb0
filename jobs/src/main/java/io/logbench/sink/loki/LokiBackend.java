package io.logbench.sink.loki;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A Grafana Loki backend block: where to push ({@code {url}/loki/api/v1/push}), in which format,
 * for which tenant, with which extra static labels, and where the run's id goes. Stream labels
 * are the dataset's stream labels plus the static ones (plus {@code logbench_run} with {@code
 * run_id: label}).
 *
 * <p>Runs never mix: by default every entry carries the run's id as structured metadata {@code
 * logbench_run} (Loki 3.x, schema v13 with the tsdb index, {@code allow_structured_metadata}),
 * which leaves the streams as the seed's, and counts add the pipeline filter {@code |
 * logbench_run="<id>"}. {@code run_id: label} makes it a stream label instead (one more label: a
 * run's streams are its own), {@code run_id: none} sends no id and filters nothing.
 *
 * @param name backend name in reports (default {@code loki})
 * @param url base URL, e.g. {@code http://127.0.0.1:3100}
 * @param format request body format
 * @param tenant {@code X-Scope-OrgID} value, or null
 * @param labels extra static labels added to every stream
 * @param auth basic auth (password from env or file), or null
 * @param timeout request timeout of pushes
 * @param queryTimeout request timeout of count queries
 * @param runId where the run's id goes on every line
 * @param tls how to trust an https URL and which client certificate to show (the {@code tls} block;
 *     senders only)
 * @param flushTimeout how long {@link #footprint} waits for the flush it asks for ({@code
 *     POST /flush}) before it reads the stored size; zero for no flush ({@code flush: false})
 */
public record LokiBackend(
    String name,
    URI url,
    Format format,
    String tenant,
    Map<String, String> labels,
    BasicAuth auth,
    Duration timeout,
    Duration queryTimeout,
    RunIdMode runId,
    TlsSettings tls,
    Duration flushTimeout)
    implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "loki";
  public static final String DEFAULT_NAME = "loki";
  public static final Format DEFAULT_FORMAT = Format.PROTOBUF;
  /** Loki's documented default of {@code reject_old_samples_max_age}. */
  public static final Duration DEFAULT_REJECT_OLD_SAMPLES_MAX_AGE = Duration.ofDays(7);

  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  public static final RunIdMode DEFAULT_RUN_ID = RunIdMode.STRUCTURED_METADATA;
  /** How long the footprint waits for the ingesters' flush by default ({@code flush_timeout}). */
  public static final Duration DEFAULT_FLUSH_TIMEOUT = Duration.ofMinutes(2);

  public static final BackendType TYPE = BackendType.of(KIND,
      List.of("url", "format", "tenant", "labels", "user", "password_env", "password_file", "run_id", "tls",
          "flush", "flush_timeout"),
      LokiBackend::parse);

  /** The body formats Loki's push endpoint takes. */
  public enum Format {
    /** {@code application/json}. */
    JSON,
    /** {@code logproto.PushRequest}, snappy block-compressed, {@code application/x-protobuf}. */
    PROTOBUF,
    /**
     * OTLP/HTTP logs in protobuf to {@code /otlp/v1/logs} ({@link io.logbench.sink.otlp.OtlpPush}):
     * each stream a resource with its labels and {@code service.name}, the run's id a log attribute.
     * Loki 3.4.6 makes {@code service.name} the index label {@code service_name} and keeps the
     * other resource and log attributes as structured metadata (observed), so counts select {@code
     * {service_name="<name>"}} and filter {@code | logbench_run="<id>"}.
     */
    OTLP
  }

  /** The {@code service.name} of OTLP pushes without a static label {@code service_name}. */
  public static final String OTLP_SERVICE = "logbench";

  /** Where a line carries the run's id ({@code run_id}). */
  public enum RunIdMode {
    /** Structured metadata {@code logbench_run} of every entry; the streams stay the dataset's. */
    STRUCTURED_METADATA("structured_metadata"),
    /** A stream label {@code logbench_run}: every stream of the run is a stream of its own. */
    LABEL("label"),
    /** No run id: lines of every run under the run's labels count as the run's. */
    NONE("none");

    private final String key;

    RunIdMode(String key) {
      this.key = key;
    }

    /** As written in a run file. */
    public String key() {
      return key;
    }
  }

  public LokiBackend {
    labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
    java.util.Objects.requireNonNull(runId, "runId");
    tls = tls == null ? TlsSettings.DEFAULT : tls;
    flushTimeout = flushTimeout == null ? DEFAULT_FLUSH_TIMEOUT : flushTimeout;
  }

  /** A backend whose footprint flushes and waits {@link #DEFAULT_FLUSH_TIMEOUT}. */
  public LokiBackend(String name, URI url, Format format, String tenant, Map<String, String> labels, BasicAuth auth,
      Duration timeout, Duration queryTimeout, RunIdMode runId, TlsSettings tls) {
    this(name, url, format, tenant, labels, auth, timeout, queryTimeout, runId, tls, DEFAULT_FLUSH_TIMEOUT);
  }

  /** A backend that trusts the JDK's CAs over https. */
  public LokiBackend(String name, URI url, Format format, String tenant, Map<String, String> labels, BasicAuth auth,
      Duration timeout, Duration queryTimeout, RunIdMode runId) {
    this(name, url, format, tenant, labels, auth, timeout, queryTimeout, runId, TlsSettings.DEFAULT);
  }

  /** A backend with the run's id as structured metadata ({@link #DEFAULT_RUN_ID}). */
  public LokiBackend(String name, URI url, Format format, String tenant, Map<String, String> labels, BasicAuth auth,
      Duration timeout, Duration queryTimeout) {
    this(name, url, format, tenant, labels, auth, timeout, queryTimeout, DEFAULT_RUN_ID);
  }

  /** Reads the keys of a {@code kind: loki} block. */
  static LokiBackend parse(ConfigNode block, CommonSettings common) {
    URI url = url(block);
    Format format =
        Format.valueOf(block.choice("format", "protobuf", "json", "protobuf", "otlp").toUpperCase());
    String tenant = block.string("tenant", null);
    if (tenant != null && tenant.isBlank()) {
      throw block.invalid("tenant", tenant, "a non-empty tenant id (X-Scope-OrgID)");
    }
    Map<String, String> labels = new LinkedHashMap<>();
    ConfigNode labelBlock = block.mapping("labels");
    Iterator<String> names = labelBlock.raw().fieldNames();
    while (names.hasNext()) {
      String label = names.next();
      if (!LABEL_NAME.matcher(label).matches()) {
        throw labelBlock.invalid(label, label, "a label name matching [a-zA-Z_][a-zA-Z0-9_]*");
      }
      if (label.equals(RunContext.RUN_FIELD)) {
        throw labelBlock.invalid(label, label, "a label name other than " + RunContext.RUN_FIELD
            + ", which carries the run's id (see run_id)");
      }
      String value = labelBlock.string(label, null);
      if (value == null || value.isEmpty()) {
        throw labelBlock.invalid(label, value, "a non-empty label value");
      }
      labels.put(label, value);
    }
    BasicAuth auth = BasicAuth.parse(block);
    String mode = block.choice("run_id", DEFAULT_RUN_ID.key(), "structured_metadata", "label", "none");
    RunIdMode runId = java.util.Arrays.stream(RunIdMode.values()).filter(m -> m.key().equals(mode)).findFirst()
        .orElseThrow();
    if (format == Format.OTLP && runId == RunIdMode.LABEL) {
      throw block.invalid("run_id", "label", "structured_metadata or none with format: otlp (Loki keeps an OTLP"
          + " log's attributes as structured metadata, never as stream labels)");
    }
    Duration flushTimeout = io.logbench.sink.Footprint.flushTimeout(block, DEFAULT_FLUSH_TIMEOUT);
    return new LokiBackend(common.name(), url, format, tenant, labels, auth, common.timeout(), common.queryTimeout(),
        runId, TlsSettings.parse(block), flushTimeout);
  }

  static URI url(ConfigNode block) {
    // credentials belong in user/password_env, never in a URL that reports would print
    return URI.create(HttpUrls.baseUrl(block, "url", "http://127.0.0.1:3100"));
  }


  /**
   * Headers every request to this Loki carries, push and query alike: the tenant and basic auth
   * (the password is read here, when a task opens a sender or reader).
   */
  public java.util.Map<String, String> requestHeaders() {
    java.util.Map<String, String> headers = new java.util.LinkedHashMap<>();
    if (tenant != null) {
      headers.put("X-Scope-OrgID", tenant);
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
   * Counts back, the run's lines only unless {@code run_id: none}; nginx lines' ids come from
   * their nanosecond offsets, app-json lines carry seq.
   */
  /** A JSON push carries each line as a string; protobuf and OTLP carry raw bytes. */
  @Override
  public boolean jsonStringLines() {
    return format == Format.JSON;
  }

  @Override
  public Capabilities capabilities() {
    return Capabilities.countable(Capabilities.LineIds.NANOSECOND_OFFSET).withRunFilter(runId != RunIdMode.NONE);
  }

  /** The push endpoint. */
  public URI pushUri() {
    return URI.create(url + (format == Format.OTLP ? "/otlp/v1/logs" : "/loki/api/v1/push"));
  }

  /** The {@code service.name} of this backend's OTLP pushes: its static label {@code service_name}, else {@value #OTLP_SERVICE}. */
  public String otlpService() {
    return labels.getOrDefault("service_name", OTLP_SERVICE);
  }

  /**
   * The labels of every stream of {@code run}: the dataset's labels plus the static ones, plus
   * {@code logbench_run} with {@code run_id: label} and a run id.
   *
   * @throws IllegalArgumentException when a static label has the name of a dataset label, or a
   *     dataset label is named {@code logbench_run}
   */
  public List<Map<String, String>> streamLabels(RunContext run) {
    StreamCatalog streams = run.streams();
    for (String l : streams.labelNames()) {
      if (labels.containsKey(l)) {
        throw new IllegalArgumentException(
            "Backend '" + name + "': the static label '" + l
                + "' clashes with a label of the dataset's streams; rename or remove it.");
      }
      if (l.equals(RunContext.RUN_FIELD)) {
        throw new IllegalArgumentException("Backend '" + name + "': the dataset's stream label '" + l
            + "' clashes with the label that carries the run's id.");
      }
    }
    List<Map<String, String>> out = new ArrayList<>(streams.size());
    for (int id = 0; id < streams.size(); id++) {
      Map<String, String> m = new LinkedHashMap<>(streams.labels(id));
      m.putAll(labels);
      if (runLabel(run) != null) {
        m.put(RunContext.RUN_FIELD, run.runId());
      }
      out.add(m);
    }
    return out;
  }

  /** The run's id when it goes into a stream label ({@code run_id: label}), else null. */
  String runLabel(RunContext run) {
    return runId == RunIdMode.LABEL ? run.runId() : null;
  }

  /** The run's id when it goes into structured metadata ({@code run_id: structured_metadata}), else null. */
  String runMetadata(RunContext run) {
    return runId == RunIdMode.STRUCTURED_METADATA ? run.runId() : null;
  }

  /**
   * What a user must know before pushing lines this old: Loki rejects lines older than {@code
   * reject_old_samples_max_age} (1 week) by default, with a 400; and whether lines of other runs
   * are in the run's time range ({@link Preflight#otherRuns}). With the run's id as structured
   * metadata such lines are not counted as this run's, but Loki drops an entry identical to one
   * of its stream (timestamp and text) whatever its structured metadata, so a run that repeats
   * another's lines (same dataset and timestamps) into the same streams has those dropped: the
   * warning says so.
   */
  @Override
  public List<String> preflight(Preflight before) {
    List<String> all = new ArrayList<>(warnings(before.oldestLineMillis(), before.nowMillis()));
    all.addAll(before.otherRuns(this, runId != RunIdMode.STRUCTURED_METADATA ? ""
        : "Loki drops a line identical in stream, timestamp and text to one it holds, whatever its"
            + " structured metadata, so lines of this run that repeat them (same dataset and timestamps)"
            + " are not stored and verify reports them MISSING: use run_id: label, or timestamps:"
            + " compressed or now, to repeat a run."));
    return all;
  }

  public List<String> warnings(long oldestLineMillis, long nowMillis) {
    if (nowMillis - oldestLineMillis <= DEFAULT_REJECT_OLD_SAMPLES_MAX_AGE.toMillis()) {
      return List.of();
    }
    return List.of(
        "Backend '" + name + "': the oldest line is from " + Instant.ofEpochMilli(oldestLineMillis)
            + ", more than a week ago; with its defaults Loki rejects such lines with 400"
            + " \"timestamp too old\", so set limits_config.reject_old_samples: false, a schema"
            + " period starting before the data and ingester.query_store_max_look_back_period: -1,"
            + " or use timestamps: compressed or now.");
  }

  @Override
  public BatchSender open(RunContext run) {
    return LokiSender.open(this, run);
  }

  /** A reader of the run's lines: the run's streams, and its id when it has one (unless {@code run_id: none}). */
  /** Counts behind a pipeline's write by the run and sequence ids in the lines ({@link LokiSeqCounter}). */
  @Override
  public io.logbench.count.SeqCounter openSeqCounter(RunContext run) {
    return new LokiSeqCounter(this, run.runId());
  }

  @Override
  public String seqCountUnavailable() {
    return labels.isEmpty() ? "a loki block behind a write selects the agent's streams by its labels, and has none"
        + " (such as labels: {job: fluent-bit})" : null;
  }

  @Override
  public LokiCountReader openCounter(RunContext run) {
    return new LokiCountReader(this, run);
  }

  /** Counts every pending sample's milliseconds in one instant query a round, without blocking. */
  @Override
  public io.logbench.count.VisibilityProbe openProbe(RunContext run) {
    return new LokiProbe(this, run);
  }

  /** Searches in LogQL, {@code sum by (<key>) (count_over_time(...))}, the run's lines only. */
  @Override
  public LokiSearch openSearch(RunContext run) {
    return new LokiSearch(this, run);
  }

  /**
   * {@code loki_ingester_chunk_stored_bytes_total} of the run's tenant ({@code fake} when Loki runs
   * without auth) from the server's {@code /metrics}: the bytes of the chunks its ingesters have
   * written to the store since they started, every run of the tenant. A chunk still in an
   * ingester's memory is not in it, and right after a run that is almost every chunk, so first the
   * ingesters are told to flush ({@code POST /flush}, see {@link LokiFlush}) and the figure is read
   * once the flush is done. With {@code flush: false}, or when the flush has not finished within
   * {@code flush_timeout}, the figure is read as it stands and marked partial, saying how many
   * chunks are still in memory.
   */
  @Override
  public java.util.Optional<io.logbench.sink.Footprint> footprint(RunContext run) throws java.io.IOException {
    try (LokiCountReader r = openCounter(run)) {
      String page;
      String caveat = null;
      if (flushTimeout.isZero()) {
        page = r.metricsPage();
        caveat = "flush: false, so only chunks the ingesters flushed on their own are in it; "
            + memoryChunks(page) + " chunks were still in their memory";
      } else {
        LokiFlush.Outcome flushed = LokiFlush.run(r.queries(), url, flushTimeout);
        page = flushed.metrics();
        if (!flushed.done()) {
          caveat = "the flush (POST /flush) had not finished after " + io.logbench.config.Durations.format(flushTimeout)
              + " (flush_timeout): " + flushed.pending() + " flush operations or chunks pending, "
              + memoryChunks(page) + " chunks in the ingesters' memory, left out";
        }
      }
      String id = tenant == null ? NO_AUTH_TENANT : tenant;
      java.util.OptionalDouble bytes = io.logbench.http.PrometheusText.sum(page, CHUNK_BYTES_METRIC,
          "tenant=\"" + id + "\"");
      if (bytes.isEmpty() && tenant != null) {
        id = NO_AUTH_TENANT;
        bytes = io.logbench.http.PrometheusText.sum(page, CHUNK_BYTES_METRIC, "tenant=\"" + id + "\"");
      }
      if (bytes.isEmpty()) {
        return java.util.Optional.empty();
      }
      String source = "Loki " + CHUNK_BYTES_METRIC + "{tenant=\"" + id + "\"} from /metrics: chunks written to"
          + " the store, every run of the tenant, since the ingesters started"
          + (caveat == null ? (flushTimeout.isZero() ? "" : ", read after a flush of every chunk in memory")
              : "; " + caveat);
      return java.util.Optional.of(new io.logbench.sink.Footprint((long) bytes.getAsDouble(), source, caveat == null));
    }
  }

  private static long memoryChunks(String page) {
    return (long) io.logbench.http.PrometheusText.sum(page, LokiFlush.MEMORY_CHUNKS).orElse(0);
  }

  /** The tenant Loki files everything under when it runs without auth ({@code auth_enabled: false}). */
  static final String NO_AUTH_TENANT = "fake";

  /** The metric Loki's ingesters count flushed chunk bytes by. */
  public static final String CHUNK_BYTES_METRIC = "loki_ingester_chunk_stored_bytes_total";
}
