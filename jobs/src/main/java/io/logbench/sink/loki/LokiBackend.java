package io.logbench.sink.loki;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.StreamCatalog;
import io.logbench.http.BasicAuth;
import io.logbench.http.HttpUrls;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Capabilities;
import io.logbench.sink.CommonSettings;
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
 * for which tenant, with which extra static labels. Stream labels are the dataset's stream labels
 * plus the static ones.
 *
 * @param name backend name in reports (default {@code loki})
 * @param url base URL, e.g. {@code http://127.0.0.1:3100}
 * @param format request body format
 * @param tenant {@code X-Scope-OrgID} value, or null
 * @param labels extra static labels added to every stream
 * @param auth basic auth (password from env or file), or null
 * @param timeout request timeout of pushes
 * @param queryTimeout request timeout of count queries
 */
public record LokiBackend(
    String name,
    URI url,
    Format format,
    String tenant,
    Map<String, String> labels,
    BasicAuth auth,
    Duration timeout,
    Duration queryTimeout)
    implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "loki";
  public static final String DEFAULT_NAME = "loki";
  public static final Format DEFAULT_FORMAT = Format.PROTOBUF;
  /** Loki's documented default of {@code reject_old_samples_max_age}. */
  public static final Duration DEFAULT_REJECT_OLD_SAMPLES_MAX_AGE = Duration.ofDays(7);

  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  public static final BackendType TYPE = BackendType.of(KIND,
      List.of("url", "format", "tenant", "labels", "user", "password_env", "password_file"), LokiBackend::parse);

  /** The body formats Loki's push endpoint takes. */
  public enum Format {
    /** {@code application/json}. */
    JSON,
    /** {@code logproto.PushRequest}, snappy block-compressed, {@code application/x-protobuf}. */
    PROTOBUF
  }

  public LokiBackend {
    labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
  }

  /** Reads the keys of a {@code kind: loki} block. */
  static LokiBackend parse(ConfigNode block, CommonSettings common) {
    URI url = url(block);
    Format format =
        Format.valueOf(block.choice("format", "protobuf", "json", "protobuf").toUpperCase());
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
      String value = labelBlock.string(label, null);
      if (value == null || value.isEmpty()) {
        throw labelBlock.invalid(label, value, "a non-empty label value");
      }
      labels.put(label, value);
    }
    BasicAuth auth = BasicAuth.parse(block);
    return new LokiBackend(common.name(), url, format, tenant, labels, auth, common.timeout(), common.queryTimeout());
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

  /** Counts back; nginx lines' ids come from their nanosecond offsets, app-json lines carry seq. */
  @Override
  public Capabilities capabilities() {
    return Capabilities.countable(Capabilities.LineIds.NANOSECOND_OFFSET);
  }

  /** The push endpoint. */
  public URI pushUri() {
    return URI.create(url + "/loki/api/v1/push");
  }

  /**
   * The labels of every stream of {@code streams}: the dataset's labels plus the static ones.
   *
   * @throws IllegalArgumentException when a static label has the name of a dataset label
   */
  public List<Map<String, String>> streamLabels(StreamCatalog streams) {
    for (String l : streams.labelNames()) {
      if (labels.containsKey(l)) {
        throw new IllegalArgumentException(
            "Backend '" + name + "': the static label '" + l
                + "' clashes with a label of the dataset's streams; rename or remove it.");
      }
    }
    List<Map<String, String>> out = new ArrayList<>(streams.size());
    for (int id = 0; id < streams.size(); id++) {
      Map<String, String> m = new LinkedHashMap<>(streams.labels(id));
      m.putAll(labels);
      out.add(m);
    }
    return out;
  }

  /**
   * What a user must know before pushing lines this old: Loki rejects lines older than {@code
   * reject_old_samples_max_age} (1 week) by default, with a 400.
   */
  @Override
  public List<String> preflight(long oldestLineMillis) {
    return warnings(oldestLineMillis, System.currentTimeMillis());
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
    return new LokiSender(this, run.streams());
  }

  @Override
  public LokiCountReader openCounter(RunContext run) {
    return new LokiCountReader(this, run.streams());
  }
}
