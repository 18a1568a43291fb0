package io.logbench.sink.loki;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.config.Durations;
import io.logbench.count.CountReader;
import io.logbench.count.LineIds;
import io.logbench.count.internal.CountQueries;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts a Loki backend's lines per window with {@code GET /loki/api/v1/query_range?query=
 * sum(count_over_time(<log selection> [W]))&start&end&step=W}, and lists the lines of a window
 * with a forward log query.
 *
 * <p><b>Selector.</b> The backend's static labels, plus every label whose value all of the
 * dataset's streams share ({@code job="nginx"} for nginx-month, {@code namespace="loadtest"} for
 * app-json); when no label is shared, the first label with {@code =~".+"}, which every stream of
 * the dataset carries. So the selector covers exactly the run's streams.
 *
 * <p><b>Runs.</b> With a run id, only the run's lines count: with {@code run_id:
 * structured_metadata} (the default) the log selection is {@code {selector} |
 * logbench_run="<id>"}, a label filter on the entries' structured metadata; with {@code run_id:
 * label} the selector itself has {@code logbench_run="<id>"}; with {@code none}, every line of the
 * selector counts.
 *
 * <p><b>Windows.</b> A point at {@code t} counts the lines in {@code (t - W, t]}, and query_range
 * aligns its start (and every point) down to a multiple of the step. logbench never puts a line on
 * a whole millisecond (its nanosecond timestamps are {@code ms * 1e6 + 1..999,999}, see {@code
 * LineBatch.distinctNanos}), and windows start on whole milliseconds, so {@code (end - W, end]}
 * holds exactly the lines of {@code [end - W, end)}: the point at the end of window {@code k}
 * counts window {@code k}. When the windows are not aligned to multiples of {@code W} (days from
 * a zone's midnight), the points are taken at the next multiples of {@code W} and the range is
 * shifted back with {@code offset} (whole milliseconds, which Loki honours). A line placed
 * exactly on a window's first nanosecond would be counted in the window before; logbench makes
 * none.
 *
 * <p><b>Limits.</b> One query asks for at most {@value #MAX_POINTS} points, and spans (points,
 * range and offset together) at most {@code max_query_length} (30d1h); longer ranges are split
 * into pieces run one after another. The query has no {@code by}, so it returns one series and
 * {@code max_query_series} (500) does not apply. Loki omits zero points; they count 0. Any failed
 * piece fails the whole call: partial counts are never returned.
 *
 * <p><b>Sequence ids.</b> The log selection with {@code direction=forward}, {@code [from, to)}
 * (Loki's log queries include the start and exclude the end), at most {@value #MAX_ENTRIES}
 * entries a request ({@code max_entries_limit_per_query}), paging from the last timestamp seen;
 * ids come from {@link LineIds}.
 */
public final class LokiCountReader implements CountReader {

  /** Loki's limit of points per series in one range query. */
  public static final int MAX_POINTS = 11_000;
  /** Loki's documented default {@code max_query_length}. */
  public static final Duration MAX_QUERY_LENGTH = Duration.ofDays(30).plusHours(1);
  /** Loki's documented default {@code max_entries_limit_per_query}. */
  public static final int MAX_ENTRIES = 5_000;

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private final LokiBackend spec;
  private final String selector;
  /** The log selection: the selector and, for structured metadata, the run's label filter. */
  private final String lines;
  private final CountQueries http;

  LokiCountReader(LokiBackend spec, RunContext run) {
    this.spec = spec;
    // OTLP pushes keep every label as structured metadata but service_name (observed on 3.4.6)
    this.selector = runSelector(spec, run);
    this.lines = selector + runFilter(spec, run);
    this.http = new CountQueries(
        "Loki backend '" + spec.name() + "'", "loki-count", spec.timeout(), spec.queryTimeout(), spec.requestHeaders(), spec.tls());
  }

  /** The stream selector of the run's lines, e.g. {@code {job="nginx"}}. */
  public String selector() {
    return selector;
  }

  /**
   * The log selection of the run's lines: the selector, with the run's filter when its id is
   * structured metadata, e.g. {@code {job="nginx"} |
   * logbench_run="quickstart-20261130-121314-3f2a"}.
   */
  public String lines() {
    return lines;
  }

  /**
   * The stream selector of the run's lines as {@code spec} writes them: OTLP lines by their
   * {@code service_name} (Loki makes the resource attribute a label), others by their labels.
   */
  static String runSelector(LokiBackend spec, RunContext run) {
    return spec.format() == LokiBackend.Format.OTLP ? "{service_name=" + quote(spec.otlpService()) + "}"
        : selector(spec, run.streams(), spec.runLabel(run));
  }

  static String selector(LokiBackend spec, StreamCatalog streams) {
    return selector(spec, streams, null);
  }

  /** The selector, with {@code logbench_run="<runLabel>"} when {@code runLabel} is not null. */
  static String selector(LokiBackend spec, StreamCatalog streams, String runLabel) {
    Map<String, String> equal = new LinkedHashMap<>(spec.labels());
    for (String name : streams.labelNames()) {
      String shared = streams.size() == 0 ? null : streams.labels(0).get(name);
      for (int id = 1; id < streams.size() && shared != null; id++) {
        if (!shared.equals(streams.labels(id).get(name))) {
          shared = null;
        }
      }
      if (shared != null && !equal.containsKey(name)) {
        equal.put(name, shared);
      }
    }
    if (runLabel != null) {
      equal.put(RunContext.RUN_FIELD, runLabel);
    }
    List<String> matchers = new ArrayList<>();
    equal.forEach((k, v) -> matchers.add(k + "=" + quote(v)));
    boolean datasetLabel = false;
    for (String name : streams.labelNames()) {
      datasetLabel |= equal.containsKey(name);
    }
    if (!datasetLabel) {
      if (streams.labelNames().isEmpty()) {
        throw new IllegalArgumentException(
            "Backend '" + spec.name() + "': the dataset's streams have no labels to select them by.");
      }
      matchers.add(streams.labelNames().get(0) + "=~\".+\"");
    }
    return "{" + String.join(", ", matchers) + "}";
  }

  /**
   * What follows the selector in the run's log selection: {@code " | logbench_run=\"<id>\""} when
   * the run's id is structured metadata, else nothing.
   */
  static String runFilter(LokiBackend spec, RunContext run) {
    String metadata = spec.runMetadata(run);
    return metadata == null ? "" : " | " + RunContext.RUN_FIELD + "=" + quote(metadata);
  }

  static String quote(String v) {
    return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
  }

  @Override
  public long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException {
    checkWindows(fromMillis, toMillis, windowMillis);
    int windows = Math.toIntExact((toMillis - fromMillis) / windowMillis);
    long[] out = new long[windows];
    long phase = Math.floorMod(fromMillis, windowMillis);
    long offset = phase == 0 ? 0 : windowMillis - phase;
    int perPiece = windowsPerQuery(windowMillis, offset);
    String range = "[" + duration(windowMillis) + "]" + (offset == 0 ? "" : " offset " + duration(offset));
    String query = "sum(count_over_time(" + lines + (lines.equals(selector) ? "" : " ") + range + "))";
    for (int first = 0; first < windows; first += perPiece) {
      int n = Math.min(perPiece, windows - first);
      long pieceFrom = fromMillis + (long) first * windowMillis;
      long firstPoint = pieceFrom + windowMillis + offset;
      long lastPoint = firstPoint + (long) (n - 1) * windowMillis;
      String what = "the count query over " + window(pieceFrom, pieceFrom + n * windowMillis);
      URI uri = URI.create(spec.url() + "/loki/api/v1/query_range?query=" + enc(query)
          + "&start=" + nanos(firstPoint) + "&end=" + nanos(lastPoint)
          + "&step=" + duration(windowMillis));
      JsonNode data = data(http.get(uri, what), "matrix", what);
      for (JsonNode series : data.path("result")) {
        for (JsonNode point : series.path("values")) {
          long t = seconds(point.path(0), what);
          long k = (t - offset - fromMillis) / windowMillis - 1;
          if ((t - offset - fromMillis) % windowMillis != 0 || k < first || k >= first + n) {
            throw http.unreadable(what, "a point at " + Instant.ofEpochMilli(t)
                + " that ends none of the windows asked for", null);
          }
          out[(int) k] += count(point.path(1), what);
        }
      }
    }
    return out;
  }

  /** Windows one query may cover: at most MAX_POINTS points and MAX_QUERY_LENGTH in all. */
  static int windowsPerQuery(long windowMillis, long offsetMillis) {
    long byLength = (MAX_QUERY_LENGTH.toMillis() - offsetMillis) / windowMillis;
    return (int) Math.max(1, Math.min(MAX_POINTS, byLength));
  }

  @Override
  public List<Long> sequenceIds(long fromMillis, long toMillis, int limit) throws IOException {
    if (toMillis < fromMillis || limit < 0) {
      throw new IllegalArgumentException("Expected from <= to and limit >= 0, got [" + fromMillis
          + ", " + toMillis + ") and " + limit + ".");
    }
    List<Long> ids = new ArrayList<>();
    long pieceLength = MAX_QUERY_LENGTH.toMillis() - Duration.ofHours(1).toMillis();
    for (long a = fromMillis; a < toMillis && ids.size() < limit; a += pieceLength) {
      long b = Math.min(toMillis, a + pieceLength);
      readLines(a * 1_000_000L, b * 1_000_000L, limit, ids);
    }
    return ids;
  }

  private record Line(long nanos, String key, String text) {}

  /** Pages through [fromNanos, toNanos) forward, appending ids until {@code limit}. */
  private void readLines(long fromNanos, long toNanos, int limit, List<Long> ids) throws IOException {
    String what = "the log query over " + window(fromNanos / 1_000_000L, toNanos / 1_000_000L);
    long start = fromNanos;
    Map<String, Integer> seenAtStart = new HashMap<>();
    while (ids.size() < limit) {
      int ask = Math.min(MAX_ENTRIES, limit - ids.size() + sum(seenAtStart));
      ask = Math.min(MAX_ENTRIES, Math.max(ask, 1));
      URI uri = URI.create(spec.url() + "/loki/api/v1/query_range?query=" + enc(lines)
          + "&direction=forward&limit=" + ask + "&start=" + start + "&end=" + toNanos);
      JsonNode data = data(http.get(uri, what), "streams", what);
      List<Line> page = new ArrayList<>();
      for (JsonNode stream : data.path("result")) {
        String labels = stream.path("stream").toString();
        for (JsonNode v : stream.path("values")) {
          if (!v.path(0).isTextual() || !v.path(1).isTextual()) {
            throw http.unreadable(what, "an entry that is not [\"<ns>\", \"<line>\"]", null);
          }
          long ns;
          try {
            ns = Long.parseLong(v.path(0).asText());
          } catch (NumberFormatException e) {
            throw http.unreadable(what, "a timestamp that is not a number", e);
          }
          page.add(new Line(ns, labels + "\u0000" + v.path(1).asText(), v.path(1).asText()));
        }
      }
      page.sort(Comparator.comparingLong(Line::nanos));
      int fresh = 0;
      Map<String, Integer> skip = new HashMap<>(seenAtStart);
      for (Line l : page) {
        if (l.nanos() == start && skip.getOrDefault(l.key(), 0) > 0) {
          skip.merge(l.key(), -1, Integer::sum);
          continue;
        }
        fresh++;
        if (ids.size() < limit) {
          ids.add(LineIds.of(l.text(), l.nanos()));
        }
      }
      if (page.size() < ask) {
        return;
      }
      long last = page.get(page.size() - 1).nanos();
      if (fresh == 0) {
        throw new IOException("Loki backend '" + spec.name() + "': more than " + ask
            + " lines share the timestamp " + last + " ns in " + what
            + ", so they cannot be paged through.");
      }
      Map<String, Integer> atLast = new HashMap<>();
      for (Line l : page) {
        if (l.nanos() == last) {
          atLast.merge(l.key(), 1, Integer::sum);
        }
      }
      seenAtStart = atLast;
      start = last;
    }
  }

  private static int sum(Map<String, Integer> m) {
    return m.values().stream().mapToInt(Integer::intValue).sum();
  }

  private JsonNode data(byte[] body, String resultType, String what) throws IOException {
    return data(http, body, resultType, what);
  }

  /**
   * The {@code data} of a Loki query answer whose {@code resultType} is {@code resultType}; an
   * answer that is not JSON, not a success or of another type is an error naming {@code what}.
   * The searches ({@link LokiSearch}) read their matrix answers through it too.
   */
  static JsonNode data(CountQueries http, byte[] body, String resultType, String what) throws IOException {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      throw http.unreadable(what, "not JSON", e);
    }
    if (root == null || !"success".equals(root.path("status").asText())) {
      throw http.unreadable(what, "no \"status\":\"success\"", null);
    }
    JsonNode data = root.path("data");
    if (!resultType.equals(data.path("resultType").asText()) || !data.path("result").isArray()) {
      throw http.unreadable(what, "no " + resultType + " result", null);
    }
    return data;
  }

  private long seconds(JsonNode t, String what) throws IOException {
    if (!t.isNumber() && !t.isTextual()) {
      throw http.unreadable(what, "a point without a time", null);
    }
    try {
      return new BigDecimal(t.asText()).movePointRight(3).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw http.unreadable(what, "a point time that is not whole milliseconds: " + t.asText(), e);
    }
  }

  private long count(JsonNode v, String what) throws IOException {
    try {
      return new BigDecimal(v.asText()).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw http.unreadable(what, "a count that is not a whole number: " + v.asText(), e);
    }
  }

  static void checkWindows(long fromMillis, long toMillis, long windowMillis) {
    if (windowMillis <= 0 || toMillis < fromMillis || (toMillis - fromMillis) % windowMillis != 0) {
      throw new IllegalArgumentException("Expected windows of a positive size tiling [from, to), got ["
          + fromMillis + ", " + toMillis + ") with windows of " + windowMillis + " ms.");
    }
  }

  /** A duration of whole milliseconds as LogQL writes it, e.g. {@code 1d}, {@code 1h30m}. */
  static String duration(long millis) {
    return Durations.format(Duration.ofMillis(millis));
  }

  static String window(long fromMillis, long toMillis) {
    return "[" + Instant.ofEpochMilli(fromMillis) + ", " + Instant.ofEpochMilli(toMillis) + ")";
  }

  private static String nanos(long millis) {
    return Long.toString(millis * 1_000_000L);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public QueryStats stats() {
    return http.stats();
  }

  /** The reader's HTTP client, for the backend's other requests to the same server (its flush). */
  CountQueries queries() {
    return http;
  }

  /** The server's own {@code /metrics} page (Prometheus text), for its size figures. */
  public String metricsPage() throws IOException {
    return new String(http.get(URI.create(spec.url() + "/metrics"), "the metrics page"),
        java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    http.close();
  }
}
