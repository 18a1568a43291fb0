package io.logbench.sink;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.config.Durations;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;

/**
 * How batches are delivered to one backend: the keys every backend block shares. Defaults:
 *
 * <ul>
 *   <li>{@code delivery}: {@link #DEFAULT_MODE} ({@code at-least-once});
 *   <li>{@code in_flight}: {@value #DEFAULT_IN_FLIGHT} requests in flight per task;
 *   <li>{@code timeout}: {@link #DEFAULT_TIMEOUT} (10 s) per request;
 *   <li>{@code retry}: {@code initial} {@link #DEFAULT_RETRY_INITIAL} (100 ms), {@code max}
 *       {@link #DEFAULT_RETRY_MAX} (30 s), {@code multiplier} {@value #DEFAULT_RETRY_MULTIPLIER}:
 *       capped exponential backoff with full jitter, at-least-once only;
 *   <li>{@code thresholds} (load-test only, k6's defaults of seed 000): {@code failed_rate}
 *       {@value #DEFAULT_FAILED_RATE} (abort when more than 1% of requests failed), {@code p95}
 *       {@link #DEFAULT_P95} (abort when the 95th percentile of request durations is over 2 s),
 *       {@code delay} {@link #DEFAULT_DELAY} (judge only from 30 s into the run).
 * </ul>
 *
 * @param mode at-least-once or load-test
 * @param inFlight requests in flight per task (the async operator's capacity)
 * @param timeout per request
 * @param retry backoff between resends (at-least-once)
 * @param thresholds when a load test aborts a backend
 */
public record DeliverySettings(
    Mode mode, int inFlight, Duration timeout, Retry retry, Thresholds thresholds)
    implements Serializable {

  public static final Mode DEFAULT_MODE = Mode.AT_LEAST_ONCE;
  public static final int DEFAULT_IN_FLIGHT = 4;
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RETRY_INITIAL = Duration.ofMillis(100);
  public static final Duration DEFAULT_RETRY_MAX = Duration.ofSeconds(30);
  public static final double DEFAULT_RETRY_MULTIPLIER = 2.0;
  public static final double DEFAULT_FAILED_RATE = 0.01;
  public static final Duration DEFAULT_P95 = Duration.ofSeconds(2);
  public static final Duration DEFAULT_DELAY = Duration.ofSeconds(30);

  /** The keys of a backend block that this class reads (a backend's own parser allows them). */
  public static final List<String> KEYS =
      List.of("delivery", "in_flight", "timeout", "retry", "thresholds");

  /** The delivery mode. */
  public enum Mode {
    /** Resend until the backend takes every line it does not reject for good. */
    AT_LEAST_ONCE("at-least-once"),
    /** Send once, count every failure, abort the backend when a threshold is crossed. */
    LOAD_TEST("load-test");

    private final String key;

    Mode(String key) {
      this.key = key;
    }

    public String key() {
      return key;
    }
  }

  /**
   * Capped exponential backoff with full jitter: before resend {@code n} (from 0) the wait is
   * uniform in {@code [0, min(max, initial * multiplier^n)]}.
   */
  public record Retry(Duration initial, Duration max, double multiplier) implements Serializable {

    /** The cap of the wait before resend {@code round} (from 0), in nanoseconds. */
    public long capNanos(int round) {
      double cap = initial.toNanos() * Math.pow(multiplier, Math.min(round, 200));
      return (long) Math.min(cap, max.toNanos());
    }
  }

  /** Load-test abort thresholds, judged per task from {@code delay} into the run. */
  public record Thresholds(double failedRate, Duration p95, Duration delay) implements Serializable {}

  public static final Retry DEFAULT_RETRY =
      new Retry(DEFAULT_RETRY_INITIAL, DEFAULT_RETRY_MAX, DEFAULT_RETRY_MULTIPLIER);
  public static final Thresholds DEFAULT_THRESHOLDS =
      new Thresholds(DEFAULT_FAILED_RATE, DEFAULT_P95, DEFAULT_DELAY);

  /** Every default. */
  public static DeliverySettings defaults() {
    return new DeliverySettings(
        DEFAULT_MODE, DEFAULT_IN_FLIGHT, DEFAULT_TIMEOUT, DEFAULT_RETRY, DEFAULT_THRESHOLDS);
  }

  /** The same settings in another mode. */
  public DeliverySettings withMode(Mode newMode) {
    return new DeliverySettings(newMode, inFlight, timeout, retry, thresholds);
  }

  /** The same settings with other thresholds. */
  public DeliverySettings withThresholds(Thresholds newThresholds) {
    return new DeliverySettings(mode, inFlight, timeout, retry, newThresholds);
  }

  /** The same settings with another retry policy. */
  public DeliverySettings withRetry(Retry newRetry) {
    return new DeliverySettings(mode, inFlight, timeout, newRetry, thresholds);
  }

  /** The same settings with another request timeout. */
  public DeliverySettings withTimeout(Duration newTimeout) {
    return new DeliverySettings(mode, inFlight, newTimeout, retry, thresholds);
  }

  /**
   * Reads the common delivery keys of a backend block. It does not reject unknown keys: the
   * backend's own parser does, allowing {@link #KEYS} besides its own.
   */
  public static DeliverySettings parse(ConfigNode block) {
    String modeKey =
        block.choice("delivery", DEFAULT_MODE.key(), Mode.AT_LEAST_ONCE.key(), Mode.LOAD_TEST.key());
    Mode mode = modeKey.equals(Mode.LOAD_TEST.key()) ? Mode.LOAD_TEST : Mode.AT_LEAST_ONCE;
    int inFlight = (int) block.integer("in_flight", DEFAULT_IN_FLIGHT, 1, 10_000,
        "a number of requests in flight per task from 1 to 10000");
    Duration timeout = block.duration("timeout", DEFAULT_TIMEOUT, false);

    if (mode == Mode.LOAD_TEST && block.has("retry")) {
      throw new ConfigException(block.path() + ".retry: a load test never retries; remove retry"
          + " or set " + block.path() + ".delivery to at-least-once.");
    }
    if (mode == Mode.AT_LEAST_ONCE && block.has("thresholds")) {
      throw new ConfigException(block.path() + ".thresholds: thresholds apply to load tests only;"
          + " remove thresholds or set " + block.path() + ".delivery to load-test.");
    }
    ConfigNode r = block.mapping("retry").allowOnly("initial", "max", "multiplier");
    Duration initial = r.duration("initial", DEFAULT_RETRY_INITIAL, false);
    Duration max = r.duration("max", DEFAULT_RETRY_MAX, false);
    double multiplier = r.number("multiplier", DEFAULT_RETRY_MULTIPLIER, 0,
        "a backoff multiplier of at least 1");
    if (multiplier < 1) {
      throw r.invalid("multiplier", multiplier, "a backoff multiplier of at least 1");
    }
    if (max.compareTo(initial) < 0) {
      throw r.invalid("max", Durations.format(max),
          "a wait of at least " + r.path() + ".initial (" + Durations.format(initial) + ")");
    }
    ConfigNode t = block.mapping("thresholds").allowOnly("failed_rate", "p95", "delay");
    double failedRate = t.number("failed_rate", DEFAULT_FAILED_RATE, -1,
        "a rate of failed requests from 0 to 1, such as 0.01 for 1%");
    if (failedRate < 0 || failedRate > 1) {
      throw t.invalid("failed_rate", failedRate, "a rate of failed requests from 0 to 1, such as 0.01 for 1%");
    }
    Duration p95 = t.duration("p95", DEFAULT_P95, false);
    Duration delay = t.duration("delay", DEFAULT_DELAY, true);
    return new DeliverySettings(mode, inFlight, timeout, new Retry(initial, max, multiplier),
        new Thresholds(failedRate, p95, delay));
  }
}
