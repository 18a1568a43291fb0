package io.logbench.sink.loki;

import com.fasterxml.jackson.databind.JsonNode;
import io.logbench.count.internal.CountQueries;
import io.logbench.query.KeyedAnswer;
import io.logbench.query.KeyedQuery;
import io.logbench.query.KeyedSearch;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The keyed search of a Loki backend, in LogQL: {@code sum by (<key>) (count_over_time(<log
 * selection> [<bucket>]))} over {@code GET /loki/api/v1/query_range} with {@code step} = the
 * bucket, the log selection being the count reader's (the run's streams and, with structured
 * metadata, its {@code logbench_run} filter). One series per value comes back as a matrix, each
 * series' {@code metric} holding the value.
 *
 * <p><b>Buckets.</b> As {@link LokiCountReader} maps windows: the point at {@code t} counts
 * {@code (t - bucket, t]}, which for logbench's lines (never on a whole millisecond) is the
 * bucket {@code [t - bucket, t)}; points are asked at bucket ends, and buckets off the step's
 * grid (a zone's midnight) are reached with {@code offset}. Points not at a bucket's end are
 * refused.
 *
 * <p><b>Limits.</b> A query spans at most {@code max_query_length} (30d1h) and {@value
 * LokiCountReader#MAX_POINTS} points; a longer run is split into pieces. A key with more values
 * than {@code max_query_series} ({@value #MAX_SERIES}) is split into groups of values, each
 * selected with {@code <key>=~"v1|v2|..."} (a value outside the dataset's then goes unseen, as
 * the groups name the values they look for).
 */
public final class LokiSearch implements KeyedSearch {

  /** Loki's documented default {@code max_query_series}. */
  public static final int MAX_SERIES = 500;

  private final LokiBackend spec;
  private final String selector;
  private final String filter;
  private final int maxSeries;
  private final CountQueries http;

  LokiSearch(LokiBackend spec, RunContext run) {
    this(spec, run, MAX_SERIES);
  }

  LokiSearch(LokiBackend spec, RunContext run, int maxSeries) {
    this.spec = spec;
    this.selector = LokiCountReader.selector(spec, run.streams(), spec.runLabel(run));
    this.filter = LokiCountReader.runFilter(spec, run);
    this.maxSeries = maxSeries;
    this.http = new CountQueries("Loki backend '" + spec.name() + "'", "loki-search", spec.timeout(),
        spec.queryTimeout(), spec.requestHeaders(), spec.tls());
  }

  @Override
  public String language() {
    return "LogQL";
  }

  @Override
  public String text(KeyedQuery q) {
    List<List<String>> groups = groups(q.values());
    return logql(q, groups.size() == 1 ? null : groups.get(0), offset(q));
  }

  /** The LogQL of {@code q}, for the values of {@code group} only (null: every value). */
  String logql(KeyedQuery q, List<String> group, long offset) {
    String sel = selector;
    if (group != null) {
      List<String> alternatives = new ArrayList<>();
      group.forEach(v -> alternatives.add(regex(v)));
      sel = selector.substring(0, selector.length() - 1) + ", " + q.key() + "=~"
          + LokiCountReader.quote(String.join("|", alternatives)) + "}";
    }
    String range = "[" + LokiCountReader.duration(q.bucketMillis()) + "]"
        + (offset == 0 ? "" : " offset " + LokiCountReader.duration(offset));
    return "sum by (" + q.key() + ") (count_over_time(" + sel + filter + " " + range + "))";
  }

  /** {@code v} as an RE2 literal: its metacharacters escaped. */
  static String regex(String v) {
    StringBuilder b = new StringBuilder(v.length());
    for (char c : v.toCharArray()) {
      if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) {
        b.append('\\');
      }
      b.append(c);
    }
    return b.toString();
  }

  /** The shift that puts points on bucket ends when the buckets are off the step's grid. */
  private static long offset(KeyedQuery q) {
    long phase = Math.floorMod(q.fromMillis(), q.bucketMillis());
    return phase == 0 ? 0 : q.bucketMillis() - phase;
  }

  /** The values in groups of at most max_query_series; one group of all when they fit. */
  List<List<String>> groups(List<String> values) {
    List<List<String>> out = new ArrayList<>();
    if (values.size() <= maxSeries) {
      out.add(values);
      return out;
    }
    for (int i = 0; i < values.size(); i += maxSeries) {
      out.add(values.subList(i, Math.min(values.size(), i + maxSeries)));
    }
    return out;
  }

  @Override
  public KeyedAnswer search(KeyedQuery q) throws IOException {
    KeyedAnswer answer = new KeyedAnswer(q);
    long w = q.bucketMillis();
    long offset = offset(q);
    int perPiece = LokiCountReader.windowsPerQuery(w, offset);
    List<List<String>> groups = groups(q.values());
    for (List<String> group : groups) {
      String logql = logql(q, groups.size() == 1 ? null : group, offset);
      for (int first = 0; first < q.buckets(); first += perPiece) {
        int n = Math.min(perPiece, q.buckets() - first);
        long pieceFrom = q.bucketStart(first);
        long firstPoint = pieceFrom + w + offset;
        long lastPoint = firstPoint + (long) (n - 1) * w;
        String what = "the search by " + q.key() + " over " + LokiCountReader.window(pieceFrom, pieceFrom + n * w);
        URI uri = URI.create(spec.url() + "/loki/api/v1/query_range?query=" + enc(logql)
            + "&start=" + firstPoint * 1_000_000L + "&end=" + lastPoint * 1_000_000L
            + "&step=" + LokiCountReader.duration(w));
        read(http.get(uri, what), q, offset, first, n, what, answer);
      }
    }
    return answer;
  }

  /** Adds a matrix answer's points to {@code answer}, each to the bucket it ends. */
  void read(byte[] body, KeyedQuery q, long offset, int first, int n, String what, KeyedAnswer answer)
      throws IOException {
    JsonNode data = LokiCountReader.data(http, body, "matrix", what);
    for (JsonNode series : data.path("result")) {
      JsonNode label = series.path("metric").path(q.key());
      String value = label.isTextual() ? label.asText() : "";
      for (JsonNode point : series.path("values")) {
        long t = millis(point.path(0), what);
        long ends = t - offset - q.fromMillis();
        long k = ends / q.bucketMillis() - 1;
        if (ends % q.bucketMillis() != 0 || k < first || k >= first + n) {
          throw http.unreadable(what, "a point at " + Instant.ofEpochMilli(t) + " that ends none of the buckets"
              + " asked for", null);
        }
        answer.add((int) k, value, count(point.path(1), what));
      }
    }
  }

  private long millis(JsonNode t, String what) throws IOException {
    try {
      return new BigDecimal(t.asText()).movePointRight(3).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw http.unreadable(what, "a point time that is not whole milliseconds: " + t.asText(), e);
    }
  }

  private long count(JsonNode v, String what) throws IOException {
    try {
      long n = new BigDecimal(v.asText()).longValueExact();
      if (n < 0) {
        throw new ArithmeticException();
      }
      return n;
    } catch (NumberFormatException | ArithmeticException e) {
      throw http.unreadable(what, "a count that is not a whole number: " + v.asText(), e);
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public long requests() {
    return http.stats().requests();
  }

  @Override
  public void close() {
    http.close();
  }
}
