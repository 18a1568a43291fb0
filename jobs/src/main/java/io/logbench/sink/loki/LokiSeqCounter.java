package io.logbench.sink.loki;

import com.fasterxml.jackson.databind.JsonNode;
import io.logbench.count.CountReader.QueryStats;
import io.logbench.count.SeqCounter;
import io.logbench.count.internal.CountQueries;
import io.logbench.pipeline.LineStamp;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Counts a run's lines in Loki by the sequence id in their bodies, for a count block behind a
 * pipeline's write. The agent's streams are selected by the block's {@code labels} (those the
 * agent puts on them); the run's id and the line's id are read from the line text with two
 * regexps ({@code logbench_run\W+<id>}, {@code logbench_seq\W+<n>}), which find them whether the
 * agent sent the line as it was, as a JSON record of parsed fields or with the line escaped inside
 * a JSON field ({@code {"log":"{\"logbench_run\":...}"}}), in either order, and then numeric label
 * filters keep an id range. Windows of the same number of ids in a row are counted by one instant
 * query, {@code sum by (w) (count_over_time(... | label_format w="{{ div (sub .lb_seq a) g }}"
 * [range]))}, at most {@value #BUCKETS_PER_QUERY} of them (Loki's {@code max_query_series} is 500
 * by default); ids are listed as {@code sum by (lb_seq)}, 500 ids a query, so a repeated id
 * shows with its count. The range is {@code [from, to)}, which Loki's {@code max_query_length}
 * (30d1h by default) bounds.
 */
final class LokiSeqCounter implements SeqCounter {

  /** The most buckets (series) one query returns. */
  static final int BUCKETS_PER_QUERY = 500;

  private final LokiBackend spec;
  private final String lines;
  private final CountQueries http;

  LokiSeqCounter(LokiBackend spec, String runId) {
    SeqCounter.requireRun(spec.name(), runId);
    if (spec.labels().isEmpty()) {
      throw new IllegalArgumentException("Backend " + spec.name() + " counts what an agent delivered to Loki and"
          + " needs labels: the labels the agent puts on its streams (such as {job: fluent-bit}).");
    }
    this.spec = spec;
    this.lines = lines(spec.labels(), runId);
    this.http = new CountQueries("Loki backend '" + spec.name() + "'", "loki-seq", spec.timeout(),
        spec.queryTimeout(), spec.requestHeaders(), spec.tls());
  }

  /** The log selection of the run's lines with their ids as the labels {@code lb_run} and {@code lb_seq}. */
  static String lines(Map<String, String> labels, String runId) {
    List<String> matchers = new ArrayList<>();
    labels.forEach((k, v) -> matchers.add(k + "=" + LokiCountReader.quote(v)));
    String run = LokiCountReader.quote(runId);
    return "{" + String.join(", ", matchers) + "} |= " + run
        + " | regexp `" + LineStamp.RUN + "\\W+(?P<lb_run>[A-Za-z0-9._-]+)`"
        + " | regexp `" + LineStamp.SEQ + "\\W+(?P<lb_seq>[0-9]+)`"
        + " | lb_run=" + run;
  }

  /** The selection of ids {@code [a, b)}. */
  String between(long a, long b) {
    return lines + " | lb_seq >= " + a + " and lb_seq < " + b;
  }

  @Override
  public long[] counts(long[] bounds, long fromMillis, long toMillis) throws IOException {
    int n = bounds.length - 1;
    long[] out = new long[Math.max(0, n)];
    int k = 0;
    while (k < n) {
      long size = bounds[k + 1] - bounds[k];
      if (size <= 0) {
        k++; // a window of no ids holds none of the run's lines
        continue;
      }
      int end = k + 1;
      while (end < n && end - k < BUCKETS_PER_QUERY && bounds[end + 1] - bounds[end] == size) {
        end++;
      }
      String what = "the count by sequence id of ids [" + bounds[k] + ", " + bounds[end] + ")";
      String query = "sum by (w) (count_over_time(" + between(bounds[k], bounds[end])
          + " | label_format w=`{{ div (sub .lb_seq " + bounds[k] + ") " + size + " }}` ["
          + (toMillis - fromMillis) + "ms]))";
      for (JsonNode series : instant(query, toMillis, what)) {
        String w = series.path("metric").path("w").asText("");
        if (!w.matches("[0-9]{1,9}") || Integer.parseInt(w) >= end - k) {
          throw http.unreadable(what, "a bucket " + w + " outside the " + (end - k) + " asked for", null);
        }
        out[k + Integer.parseInt(w)] += count(series, what);
      }
      k = end;
    }
    return out;
  }

  @Override
  public List<Long> sequenceIds(long firstId, long endId, long fromMillis, long toMillis, int limit)
      throws IOException {
    List<Long> ids = new ArrayList<>();
    for (long a = firstId; a < endId && ids.size() < limit; a += BUCKETS_PER_QUERY) {
      long b = Math.min(endId, a + BUCKETS_PER_QUERY);
      String what = "the list of ids [" + a + ", " + b + ")";
      String query = "sum by (lb_seq) (count_over_time(" + between(a, b) + " [" + (toMillis - fromMillis) + "ms]))";
      List<long[]> found = new ArrayList<>();
      for (JsonNode series : instant(query, toMillis, what)) {
        String id = series.path("metric").path("lb_seq").asText("");
        if (!id.matches("[0-9]{1,18}")) {
          throw http.unreadable(what, "a series whose lb_seq is not an id: " + id, null);
        }
        found.add(new long[] {Long.parseLong(id), count(series, what)});
      }
      found.sort((x, y) -> Long.compare(x[0], y[0]));
      for (long[] f : found) {
        for (long c = 0; c < f[1] && ids.size() < limit; c++) {
          ids.add(f[0]);
        }
      }
    }
    return ids;
  }

  /** The vector of an instant query at the last millisecond before {@code toMillis}. */
  private JsonNode instant(String query, long toMillis, String what) throws IOException {
    String form = "query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&time=" + (toMillis * 1_000_000L - 1);
    HttpRequest request = http.request(URI.create(spec.url() + "/loki/api/v1/query"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build();
    CountQueries.Answer a = http.send(request, what);
    if (a.status() != 200) {
      throw new IOException(http.backend() + " answered " + a.status() + " to " + what + ": " + a.shortText(300));
    }
    return LokiCountReader.data(http, a.body(), "vector", what).path("result");
  }

  private long count(JsonNode series, String what) throws IOException {
    try {
      return new BigDecimal(series.path("value").path(1).asText()).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw http.unreadable(what, "a count that is not a whole number: " + series.path("value"), e);
    }
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
