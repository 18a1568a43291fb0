package io.logbench.sink.victorialogs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.config.Durations;
import io.logbench.count.CountReader;
import io.logbench.count.LineIds;
import io.logbench.count.internal.CountQueries;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts a VictoriaLogs backend's lines per window with {@code /select/logsql/hits?query=<filter>
 * &start&end&step=W}, and lists the lines of a window with {@code /select/logsql/query}.
 *
 * <p><b>Filter.</b> Every label whose value all of the dataset's streams share, as a stream filter
 * when it is a stream field ({@code {job="nginx"}}, {@code {namespace="loadtest"}}) and as an
 * exact field filter ({@code label:="value"}) otherwise; when no label is shared, {@code
 * <first label>:*} (the field is not empty), which every line of the dataset satisfies. With a
 * run id, also {@code logbench_run:="<id>"}: only the run's rows count.
 *
 * <p><b>Windows.</b> hits buckets are {@code [t, t + step)}, aligned to the epoch and shifted by
 * {@code offset} the way a time zone is ({@code offset=-3h} starts days at 03:00Z, midnight in
 * America/Sao_Paulo), so windows of {@code W} starting at {@code from} are buckets of step {@code
 * W} with {@code offset = -(from mod W)}: no boundary mapping is needed, and a line on a window's
 * first nanosecond counts in that window. {@code start} is the first window's start and {@code end}
 * the last nanosecond before {@code to} (hits includes both ends). Empty buckets may be omitted or
 * answered as 0: both read as 0.
 *
 * <p><b>Limits.</b> VictoriaLogs has no hard limit on buckets, but a request asks for at most
 * {@value #MAX_BUCKETS} buckets, longer ranges being split into pieces run one after another, so
 * one answer stays small. Any failed piece fails the whole call: partial counts are never
 * returned.
 *
 * <p><b>Freshness.</b> Newly ingested rows become searchable after about a second; the reader
 * reports what is searchable and leaves re-checking windows to the verifier.
 */
public final class VictoriaLogsCountReader implements CountReader {

  /** The most buckets one hits request asks for. */
  public static final int MAX_BUCKETS = 10_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final VictoriaLogsBackend spec;
  private final String filter;
  private final CountQueries http;

  VictoriaLogsCountReader(VictoriaLogsBackend spec, RunContext run) {
    this.spec = spec;
    this.filter = runFilter(filter(spec.streamFields(run.streams()), run.streams(), spec.name()), run.runId());
    this.http = new CountQueries("VictoriaLogs backend '" + spec.name() + "'", "victorialogs-count",
        spec.timeout(), spec.queryTimeout(), spec.requestHeaders());
  }

  /** The LogsQL filter of the run's lines, e.g. {@code {job="nginx"}}. */
  public String filter() {
    return filter;
  }

  static String filter(List<String> streamFields, StreamCatalog streams, String backend) {
    List<String> stream = new ArrayList<>();
    List<String> exact = new ArrayList<>();
    for (String name : streams.labelNames()) {
      String shared = streams.size() == 0 ? null : streams.labels(0).get(name);
      for (int id = 1; id < streams.size() && shared != null; id++) {
        if (!shared.equals(streams.labels(id).get(name))) {
          shared = null;
        }
      }
      if (shared == null) {
        continue;
      }
      if (streamFields.contains(name)) {
        stream.add(name + "=" + quote(shared));
      } else {
        exact.add(name + ":=" + quote(shared));
      }
    }
    List<String> parts = new ArrayList<>();
    if (!stream.isEmpty()) {
      parts.add("{" + String.join(",", stream) + "}");
    }
    parts.addAll(exact);
    if (parts.isEmpty()) {
      if (streams.labelNames().isEmpty()) {
        throw new IllegalArgumentException(
            "Backend '" + backend + "': the dataset's streams have no labels to select them by.");
      }
      parts.add(streams.labelNames().get(0) + ":*");
    }
    return String.join(" ", parts);
  }

  /**
   * {@code filter} narrowed to the lines of run {@code runId}: {@code <filter>
   * logbench_run:="<id>"} (an exact match on a plain field, not a stream field, so the streams stay the dataset's);
   * {@code filter} itself without a run id.
   */
  static String runFilter(String filter, String runId) {
    return runId == null ? filter : filter + " " + RunContext.RUN_FIELD + ":=" + quote(runId);
  }

  private static String quote(String v) {
    return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  @Override
  public long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException {
    if (windowMillis <= 0 || toMillis < fromMillis || (toMillis - fromMillis) % windowMillis != 0) {
      throw new IllegalArgumentException("Expected windows of a positive size tiling [from, to), got ["
          + fromMillis + ", " + toMillis + ") with windows of " + windowMillis + " ms.");
    }
    int windows = Math.toIntExact((toMillis - fromMillis) / windowMillis);
    long[] out = new long[windows];
    long phase = Math.floorMod(fromMillis, windowMillis);
    String step = Durations.format(Duration.ofMillis(windowMillis));
    String offset = phase == 0 ? "" : "&offset=-" + Durations.format(Duration.ofMillis(phase));
    for (int first = 0; first < windows; first += MAX_BUCKETS) {
      int n = Math.min(MAX_BUCKETS, windows - first);
      long a = fromMillis + (long) first * windowMillis;
      long b = a + n * windowMillis;
      String what = "the hits query over " + window(a, b);
      URI uri = URI.create(spec.url() + "/select/logsql/hits?query=" + enc(filter)
          + "&start=" + enc(rfc3339(a * 1_000_000L)) + "&end=" + enc(rfc3339(b * 1_000_000L - 1))
          + "&step=" + step + offset);
      JsonNode root = read(http.get(uri, what), what);
      JsonNode hits = root == null ? null : root.get("hits");
      if (hits == null || !hits.isArray()) {
        throw http.unreadable(what, "no \"hits\" array", null);
      }
      for (JsonNode group : hits) {
        JsonNode ts = group.path("timestamps");
        JsonNode vs = group.path("values");
        if (!ts.isArray() || !vs.isArray() || ts.size() != vs.size()) {
          throw http.unreadable(what, "timestamps and values that do not pair up", null);
        }
        for (int i = 0; i < ts.size(); i++) {
          long v = vs.get(i).asLong(-1);
          if (!vs.get(i).isIntegralNumber() || v < 0) {
            throw http.unreadable(what, "a count that is not a whole number: " + vs.get(i), null);
          }
          if (v == 0) {
            continue;
          }
          long t = millis(ts.get(i).asText(), what);
          long k = Math.floorDiv(t - fromMillis, windowMillis);
          if (Math.floorMod(t - fromMillis, windowMillis) != 0 || k < first || k >= first + n) {
            throw http.unreadable(what, "a bucket at " + ts.get(i).asText()
                + " that starts none of the windows asked for", null);
          }
          out[(int) k] += v;
        }
      }
    }
    return out;
  }

  @Override
  public List<Long> sequenceIds(long fromMillis, long toMillis, int limit) throws IOException {
    if (toMillis < fromMillis || limit < 0) {
      throw new IllegalArgumentException("Expected from <= to and limit >= 0, got [" + fromMillis
          + ", " + toMillis + ") and " + limit + ".");
    }
    List<Long> ids = new ArrayList<>();
    if (limit == 0 || toMillis == fromMillis) {
      return ids;
    }
    String what = "the log query over " + window(fromMillis, toMillis);
    String query = filter + " _time:[" + Instant.ofEpochMilli(fromMillis) + ", "
        + Instant.ofEpochMilli(toMillis) + ") | fields _msg, _time";
    URI uri = URI.create(spec.url() + "/select/logsql/query?query=" + enc(query) + "&limit=" + limit);
    byte[] body = http.get(uri, what);
    for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode row = read(line.getBytes(StandardCharsets.UTF_8), what);
      if (row == null || !row.path("_time").isTextual() || !row.has("_msg")) {
        throw http.unreadable(what, "a line without _msg and _time", null);
      }
      long nanos = nanos(row.get("_time").asText(), what);
      if (ids.size() < limit) {
        ids.add(LineIds.of(row.get("_msg").asText(), nanos));
      }
    }
    return ids;
  }

  private JsonNode read(byte[] body, String what) throws IOException {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw http.unreadable(what, "not JSON", e);
    }
  }

  private long nanos(String text, String what) throws IOException {
    try {
      OffsetDateTime t = OffsetDateTime.parse(text);
      return t.toEpochSecond() * 1_000_000_000L + t.getNano();
    } catch (DateTimeParseException e) {
      throw http.unreadable(what, "a time that is not RFC 3339: " + text, e);
    }
  }

  private long millis(String text, String what) throws IOException {
    long ns = nanos(text, what);
    if (ns % 1_000_000L != 0) {
      throw http.unreadable(what, "a bucket time that is not whole milliseconds: " + text, null);
    }
    return ns / 1_000_000L;
  }

  static String rfc3339(long nanos) {
    return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L))
        .toString();
  }

  private static String window(long fromMillis, long toMillis) {
    return "[" + Instant.ofEpochMilli(fromMillis) + ", " + Instant.ofEpochMilli(toMillis) + ")";
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public QueryStats stats() {
    return http.stats();
  }

  @Override
  public void close() {
    http.close();
  }
}
