package io.logbench.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A mapping of a run file with its key path, for reading values with precise errors (backend
 * blocks read their own keys with it).
 */
public final class ConfigNode {

  private final JsonNode node;
  private final String path;

  public ConfigNode(JsonNode node, String path) {
    this.node = node;
    this.path = path;
  }

  public String path() {
    return path;
  }

  private String at(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** Fails on any key not in {@code allowed}, naming it and the keys this mapping takes. */
  public ConfigNode allowOnly(String... allowed) {
    Set<String> ok = new TreeSet<>(Arrays.asList(allowed));
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!ok.contains(name)) {
        throw new ConfigException(
            at(name) + ": unknown key; expected one of " + String.join(", ", Arrays.asList(allowed)) + ".");
      }
    }
    return this;
  }

  public boolean has(String key) {
    JsonNode v = node.get(key);
    return v != null && !v.isNull();
  }

  /** A nested mapping; an absent one reads as empty. */
  public ConfigNode mapping(String key) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return new ConfigNode(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode(), at(key));
    }
    if (!v.isObject()) {
      throw ConfigException.invalid(at(key), scalar(v), "a mapping of keys");
    }
    return new ConfigNode(v, at(key));
  }

  public String string(String key, String fallback) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return fallback;
    }
    if (!v.isTextual() && !v.isNumber() && !v.isBoolean()) {
      throw ConfigException.invalid(at(key), scalar(v), "a string");
    }
    return v.asText();
  }

  /** One of {@code choices}. */
  public String choice(String key, String fallback, String... choices) {
    String v = string(key, fallback);
    if (v == null) {
      throw ConfigException.missing(at(key), "one of " + String.join(", ", choices));
    }
    for (String c : choices) {
      if (c.equals(v)) {
        return v;
      }
    }
    throw ConfigException.invalid(at(key), v, "one of " + String.join(", ", choices));
  }

  public long integer(String key, long fallback, long min, long max, String what) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return fallback;
    }
    if (!v.isIntegralNumber()) {
      throw ConfigException.invalid(at(key), scalar(v), what);
    }
    long n = v.asLong();
    if (n < min || n > max) {
      throw ConfigException.invalid(at(key), n, what);
    }
    return n;
  }

  public double number(String key, double fallback, double minExclusive, String what) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return fallback;
    }
    return number(v, at(key), minExclusive, what);
  }

  private static double number(JsonNode v, String path, double minExclusive, String what) {
    if (!v.isNumber()) {
      throw ConfigException.invalid(path, scalar(v), what);
    }
    double d = v.asDouble();
    if (!(d > minExclusive) || Double.isInfinite(d)) {
      throw ConfigException.invalid(path, v.numberValue(), what);
    }
    return d;
  }

  /** A list of numbers, each greater than {@code minExclusive}. */
  public List<Double> numbers(String key, List<Double> fallback, double minExclusive, String what) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return fallback;
    }
    if (!v.isArray() || v.isEmpty()) {
      throw ConfigException.invalid(at(key), scalar(v), "a non-empty list of " + what);
    }
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < v.size(); i++) {
      out.add(number(v.get(i), at(key) + "[" + i + "]", minExclusive, what));
    }
    return out;
  }

  public Duration duration(String key, Duration fallback, boolean allowZero) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return fallback;
    }
    String what = "a duration such as 500ms, 30s, 2m, 1h or 1d" + (allowZero ? "" : ", greater than 0");
    Duration d = v.isTextual() ? Durations.parse(v.asText()) : null;
    if (d == null || (!allowZero && d.isZero())) {
      throw ConfigException.invalid(at(key), scalar(v), what);
    }
    return d;
  }

  /** A non-empty list of durations, each as {@link #duration} takes it. */
  public List<Duration> durations(String key, List<Duration> fallback, boolean allowZero) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return fallback;
    }
    String what = "a duration such as 500ms, 30s, 2m, 1h or 1d" + (allowZero ? "" : ", greater than 0");
    if (!v.isArray() || v.isEmpty()) {
      throw ConfigException.invalid(at(key), scalar(v), "a non-empty list of durations, such as [1h, 6h, 24h]");
    }
    List<Duration> out = new ArrayList<>();
    for (int i = 0; i < v.size(); i++) {
      JsonNode e = v.get(i);
      Duration d = e.isTextual() ? Durations.parse(e.asText()) : null;
      if (d == null || (!allowZero && d.isZero())) {
        throw ConfigException.invalid(at(key) + "[" + i + "]", scalar(e), what);
      }
      out.add(d);
    }
    return out;
  }

  public Instant instant(String key) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    try {
      if (!v.isTextual()) {
        throw new DateTimeParseException("not text", v.asText(), 0);
      }
      return OffsetDateTime.parse(v.asText()).toInstant();
    } catch (DateTimeParseException e) {
      throw ConfigException.invalid(
          at(key), scalar(v), "an ISO-8601 time with an offset, such as 2021-05-01T00:00:00-03:00");
    }
  }

  public ZoneId zone(String key, ZoneId fallback) {
    String v = string(key, null);
    if (v == null) {
      return fallback;
    }
    try {
      return ZoneId.of(v);
    } catch (RuntimeException e) {
      throw ConfigException.invalid(at(key), v, "a time zone such as UTC or America/Sao_Paulo");
    }
  }

  /** The raw node (for lists of mappings and other shapes the helpers above do not cover). */
  public JsonNode raw() {
    return node;
  }

  /** Mappings of a list under {@code key}, each with its path ({@code key[i]}). */
  public List<ConfigNode> mappings(String key) {
    JsonNode v = node.get(key);
    List<ConfigNode> out = new ArrayList<>();
    if (v == null || v.isNull()) {
      return out;
    }
    if (!v.isArray()) {
      throw ConfigException.invalid(at(key), scalar(v), "a list of mappings");
    }
    for (int i = 0; i < v.size(); i++) {
      if (!v.get(i).isObject()) {
        throw ConfigException.invalid(at(key) + "[" + i + "]", scalar(v.get(i)), "a mapping of keys");
      }
      out.add(new ConfigNode(v.get(i), at(key) + "[" + i + "]"));
    }
    return out;
  }

  /** The error for a value of {@code key} that is not what was expected. */
  public ConfigException invalid(String key, Object value, String expected) {
    return ConfigException.invalid(at(key), value, expected);
  }

  private static Object scalar(JsonNode v) {
    if (v.isTextual()) {
      return v.asText();
    }
    if (v.isNumber()) {
      return v.numberValue();
    }
    if (v.isContainerNode()) {
      return v.isArray() ? "a list" : "a mapping";
    }
    return v.asText();
  }
}
