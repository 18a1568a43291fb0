package io.logbench.sink;

import io.logbench.config.ConfigNode;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The keys every backend block has besides its own, read once for every kind by {@link
 * BackendType#parse}: {@code kind}, {@code name} (default: the kind's default name), {@code
 * query_timeout} (count reads; default {@link #DEFAULT_QUERY_TIMEOUT}) and the delivery keys of
 * {@link DeliverySettings} ({@code delivery}, {@code in_flight}, {@code timeout}, {@code retry},
 * {@code thresholds}).
 *
 * @param kind the kind as written in the run file
 * @param name the backend's name in reports and the ledger (unique within a run)
 * @param delivery how batches are delivered
 * @param queryTimeout how long one count query may take before the verifier retries it
 * @param visibility this backend's {@code visibility:} keys over the run file's (none set by default)
 */
public record CommonSettings(String kind, String name, DeliverySettings delivery, Duration queryTimeout,
    VisibilitySettings.Overrides visibility) implements Serializable {

  private static final long serialVersionUID = 1L;

  /**
   * Count queries over a month of windows on a real Loki take seconds each; they get their own
   * deadline, longer than a push's.
   */
  public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(60);

  /** The keys read here. */
  public static final List<String> KEYS;

  static {
    List<String> k = new ArrayList<>(List.of("kind", "name", "query_timeout"));
    k.addAll(DeliverySettings.KEYS);
    k.add("visibility");
    KEYS = List.copyOf(k);
  }

  public CommonSettings {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(delivery, "delivery");
    Objects.requireNonNull(queryTimeout, "queryTimeout");
    visibility = visibility == null ? VisibilitySettings.Overrides.none() : visibility;
  }

  /** Settings that leave the run file's visibility settings as they are. */
  public CommonSettings(String kind, String name, DeliverySettings delivery, Duration queryTimeout) {
    this(kind, name, delivery, queryTimeout, null);
  }

  /** This backend's visibility settings: its own keys over the run file's {@code run}. */
  public VisibilitySettings visibility(VisibilitySettings run) {
    return visibility.over(run);
  }

  /** Defaults for a backend of {@code kind} named {@code name} (for tests and tools). */
  public static CommonSettings of(String kind, String name) {
    return new CommonSettings(kind, name, DeliverySettings.defaults(), DEFAULT_QUERY_TIMEOUT);
  }

  /** The request timeout of sends ({@code timeout}). */
  public Duration timeout() {
    return delivery.timeout();
  }

  /** The same settings with another request timeout. */
  public CommonSettings withTimeout(Duration timeout) {
    return new CommonSettings(kind, name, delivery.withTimeout(timeout), queryTimeout, visibility);
  }

  /** The same settings with another query timeout. */
  public CommonSettings withQueryTimeout(Duration timeout) {
    return new CommonSettings(kind, name, delivery, timeout, visibility);
  }

  /** The same settings with other visibility keys. */
  public CommonSettings withVisibility(VisibilitySettings.Overrides keys) {
    return new CommonSettings(kind, name, delivery, queryTimeout, keys);
  }

  /** The same settings with other delivery settings. */
  public CommonSettings withDelivery(DeliverySettings settings) {
    return new CommonSettings(kind, name, settings, queryTimeout, visibility);
  }

  /** Reads the common keys of {@code block}, whose kind is {@code kind}. */
  static CommonSettings parse(ConfigNode block, String kind, String defaultName) {
    String name = block.string("name", defaultName);
    if (!name.matches("[A-Za-z0-9._-]+")) {
      throw block.invalid("name", name, "a backend name of letters, digits, '.', '_' or '-'");
    }
    Duration queryTimeout = block.duration("query_timeout", DEFAULT_QUERY_TIMEOUT, false);
    VisibilitySettings.Overrides visibility = block.has("visibility")
        ? VisibilitySettings.Overrides.parse(block.mapping("visibility")) : VisibilitySettings.Overrides.none();
    return new CommonSettings(kind, name, DeliverySettings.parse(block), queryTimeout, visibility);
  }
}
