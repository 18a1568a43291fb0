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
 * &start&end&step}, and lists the lines of a window with {@code /select/logsql/query}.
 *
 * <p><b>Filter.</b> Every label whose value all of the dataset's streams share, as a stream filter
 * when it is a stream field ({@code {job="nginx"}}, {@code {namespace="loadtest"}}) and as an
 * exact field filter ({@code label:="value"}) otherwise; when no label is shared, {@code
 * <first label>:*} (the field is not empty), which every line of the dataset satisfies. With a
 * run id, also {@code logbench_run:="<id>"}: only the run's rows count.
 *
 * <p><b>Windows.</b> hits buckets are {@code [t, t + step)}, aligned to the epoch, and a request
 * may shift them with {@code offset}; but the sign of that shift differs between versions:
 * VictoriaLogs 1.26.0 starts buckets at {@code k * step + offset} ({@code step=1d&offset=3h} gives
 * a bucket at 03:00Z), while its later documentation describes {@code k * step - offset} ({@code
 * offset=-4h} for days in New York). So the reader asks so that the sign cannot matter: windows of
 * {@code W} starting at {@code from} are off the epoch's grid by {@code p = from mod W}, and
 * buckets of {@code step = gcd(W, p)} with no offset are epoch-aligned and tile every window
 * exactly ({@code W / step} of them per window, added up: 8 buckets of 3h for a day in
 * America/Sao_Paulo, 1 for minutes and hours there). Only when that would take more than
 * {@value #MAX_BUCKETS_PER_WINDOW} buckets per window does it shift window-sized buckets with
 * {@code offset=+p}, learning the sign from the first answer with a bucket (a bucket at {@code
 * k * W - p} means the other convention: asked again with {@code -p}, and kept). A line on a
 * window's first nanosecond counts in that window. {@code start} is the first window's start and
 * {@code end} the last nanosecond before {@code to} (hits includes both ends). Empty buckets may
 * be omitted or answered as 0: both read as 0.
 *
 * <p><b>Limits.</b> VictoriaLogs has no hard limit on buckets, but a request asks for at most
 * {@value #MAX_BUCKETS} buckets (whole windows of them), longer ranges being split into pieces
 * run one after another, so one answer stays small. Any failed piece fails the whole call:
 * partial counts are never returned.
 *
 * <p><b>Freshness.</b> Newly ingested rows become searchable after about a second; the reader
 * reports what is searchable and leaves re-checking windows to the verifier.
 */
public final class VictoriaLogsCountReader implements CountReader {

  /** The most buckets one hits request asks for. */
  public static final int MAX_BUCKETS = 10_000;
  /**
   * The most epoch-aligned buckets added up per window (a day of 1-minute buckets); beyond it the
   * reader shifts window-sized buckets with {@code offset} instead.
   */
  public static final int MAX_BUCKETS_PER_WINDOW = 1_440;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final VictoriaLogsBackend spec;
  private final String filter;
  private final CountQueries http;
  /** The sign of {@code offset} that starts buckets at {@code k * step + phase}: +1 as on 1.26.0. */
  private long offsetSign = 1;
  /** Whether an answer has confirmed {@link #offsetSign}. */
  private boolean offsetKnown;

  VictoriaLogsCountReader(VictoriaLogsBackend spec, RunContext run) {
    this.spec = spec;
    this.filter = runFilter(spec, run);
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

  /** The LogsQL filter of the run's lines in {@code spec}. */
  static String runFilter(VictoriaLogsBackend spec, RunContext run) {
    return runFilter(filter(spec.streamFields(run.streams()), run.streams(), spec.name()), run.runId());
  }

  /**
   * {@code filter} narrowed to the lines of run {@code runId}: {@code <filter>
   * logbench_run:="<id>"} (an exact match on a plain field, not a stream field, so the streams stay the dataset's);
   * {@code filter} itself without a run id.
   */
  static String runFilter(String filter, String runId) {
    return runId == null ? filter : filter + " " + RunContext.RUN_FIELD + ":=" + quote(runId);
  }

  static String quote(String v) {
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
    long step = phase == 0 ? windowMillis : gcd(windowMillis, phase);
    if (windowMillis / step <= MAX_BUCKETS_PER_WINDOW) {
      countEpochAligned(fromMillis, windows, windowMillis, step, out);
    } else {
      countWithOffset(fromMillis, windows, windowMillis, phase, out);
    }
    return out;
  }

  /**
   * Buckets of {@code step} (a divisor of the window and of its phase) with no offset, so they
   * are aligned to the epoch whatever the server's offset convention; {@code window / step}
   * buckets are added up per window.
   */
  private void countEpochAligned(long fromMillis, int windows, long windowMillis, long step, long[] out)
      throws IOException {
    int perWindow = (int) (windowMillis / step);
    int windowsPerRequest = Math.max(1, MAX_BUCKETS / perWindow);
    for (int first = 0; first < windows; first += windowsPerRequest) {
      int n = Math.min(windowsPerRequest, windows - first);
      long a = fromMillis + (long) first * windowMillis;
      long b = a + n * windowMillis;
      String what = "the hits query over " + window(a, b);
      for (Bucket bucket : hits(a, b, step, null, what)) {
        long k = Math.floorDiv(bucket.millis() - fromMillis, windowMillis);
        if (Math.floorMod(bucket.millis(), step) != 0 || k < first || k >= first + n) {
          throw http.unreadable(what, "a bucket at " + bucket.text() + " that starts none of the "
              + Durations.format(Duration.ofMillis(step)) + " buckets asked for", null);
        }
        out[(int) k] += bucket.count();
      }
    }
  }

  /**
   * Buckets of the window itself, shifted onto the windows with {@code offset}; VictoriaLogs
   * 1.26.0 starts buckets at {@code k * step + offset}, while its later documentation describes
   * {@code k * step - offset}. The first answer with a bucket tells which: a bucket that starts
   * no window but would under the other sign switches the sign (asked again), and the sign is
   * kept for later calls.
   */
  private void countWithOffset(long fromMillis, int windows, long windowMillis, long phase, long[] out)
      throws IOException {
    for (int first = 0; first < windows; first += MAX_BUCKETS) {
      int n = Math.min(MAX_BUCKETS, windows - first);
      long a = fromMillis + (long) first * windowMillis;
      long b = a + n * windowMillis;
      String what = "the hits query over " + window(a, b);
      boolean retried = false;
      while (true) {
        long offset = offsetSign * phase;
        long[] piece = new long[n];
        String misfit = null;
        for (Bucket bucket : hits(a, b, windowMillis, offset, what)) {
          long k = Math.floorDiv(bucket.millis() - fromMillis, windowMillis);
          if (Math.floorMod(bucket.millis() - fromMillis, windowMillis) != 0 || k < first || k >= first + n) {
            misfit = bucket.text();
            break;
          }
          piece[(int) (k - first)] += bucket.count();
        }
        if (misfit == null) {
          offsetKnown = true;
          System.arraycopy(piece, 0, out, first, n);
          break;
        }
        if (offsetKnown || retried) {
          throw http.unreadable(what, "a bucket at " + misfit + " that starts none of the windows asked for,"
              + " with offset " + (offset < 0 ? "-" : "") + Durations.format(Duration.ofMillis(Math.abs(offset))),
              null);
        }
        offsetSign = -offsetSign;
        retried = true;
      }
    }
  }

  /** One bucket of a hits answer: its start as sent and in epoch ms, and its count. */
  private record Bucket(String text, long millis, long count) {}

  /** The non-empty buckets of a hits request over {@code [a, b)}; {@code offsetMillis} null for none. */
  private List<Bucket> hits(long a, long b, long stepMillis, Long offsetMillis, String what) throws IOException {
    String offset = offsetMillis == null || offsetMillis == 0 ? ""
        : "&offset=" + (offsetMillis < 0 ? "-" : "") + Durations.format(Duration.ofMillis(Math.abs(offsetMillis)));
    URI uri = URI.create(spec.url() + "/select/logsql/hits?query=" + enc(filter)
        + "&start=" + enc(rfc3339(a * 1_000_000L)) + "&end=" + enc(rfc3339(b * 1_000_000L - 1))
        + "&step=" + Durations.format(Duration.ofMillis(stepMillis)) + offset);
    JsonNode root = read(http.get(uri, what), what);
    JsonNode hits = root == null ? null : root.get("hits");
    if (hits == null || !hits.isArray()) {
      throw http.unreadable(what, "no \"hits\" array", null);
    }
    List<Bucket> out = new ArrayList<>();
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
        if (v != 0) {
          out.add(new Bucket(ts.get(i).asText(), millis(ts.get(i).asText(), what), v));
        }
      }
    }
    return out;
  }

  static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
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
