package io.logbench.sink.loki;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchSender;
import io.logbench.sink.http.BasicAuth;
import io.logbench.sink.internal.HttpUrls;
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
 * @param timeout request timeout
 */
public record LokiBackend(
    String name,
    URI url,
    Format format,
    String tenant,
    Map<String, String> labels,
    BasicAuth auth,
    Duration timeout)
    implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "loki";
  public static final String DEFAULT_NAME = "loki";
  public static final Format DEFAULT_FORMAT = Format.PROTOBUF;
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  /** Loki's documented default of {@code reject_old_samples_max_age}. */
  public static final Duration DEFAULT_REJECT_OLD_SAMPLES_MAX_AGE = Duration.ofDays(7);

  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  /** Keys of the delivery block another part of the run file reads; accepted and ignored here. */
  static final String[] DELIVERY_KEYS = {"delivery", "in_flight", "retry", "thresholds", "timeout"};

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

  /** Reads a {@code kind: loki} block. */
  public static LokiBackend parse(ConfigNode block) {
    List<String> keys =
        new ArrayList<>(
            List.of(
                "kind", "name", "url", "format", "tenant", "labels", "user", "password_env",
                "password_file"));
    keys.addAll(List.of(DELIVERY_KEYS));
    block.allowOnly(keys.toArray(String[]::new));
    block.choice("kind", null, KIND);
    String name = block.string("name", DEFAULT_NAME);
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
    Duration timeout = block.duration("timeout", DEFAULT_TIMEOUT, false);
    return new LokiBackend(name, url, format, tenant, labels, auth, timeout);
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
  public BatchSender open(StreamCatalog streams) {
    return new LokiSender(this, streams);
  }

  @Override
  public LokiCountReader openCounter(StreamCatalog streams) {
    return new LokiCountReader(this, streams);
  }
}
