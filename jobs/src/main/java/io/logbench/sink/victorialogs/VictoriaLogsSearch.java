package io.logbench.sink.victorialogs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.config.Durations;
import io.logbench.count.internal.CountQueries;
import io.logbench.query.KeyedAnswer;
import io.logbench.query.KeyedQuery;
import io.logbench.query.KeyedSearch;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * The keyed search of a VictoriaLogs backend, in LogsQL: {@code <filter> _time:[start, end) |
 * stats by (_time:<step>, <key>) count() hits} over {@code GET /select/logsql/query}, the filter
 * being the count reader's (the run's streams and its {@code logbench_run}). The answer is JSON
 * lines, one per non-empty bucket and value: {@code {"_time":"2021-05-01T03:00:00Z",
 * "status":"200","hits":"1234"}}.
 *
 * <p><b>Buckets.</b> {@code _time:<step>} buckets are aligned to the epoch; a bucket off that
 * grid (a day from a zone's midnight, an hour in a zone with a half-hour offset) is counted as
 * the sum of the epoch-aligned buckets of {@code step = gcd(bucket, bucket's offset from the
 * grid)} inside it, as {@link VictoriaLogsCountReader} counts windows, so the search never
 * depends on how a version applies an {@code offset}. A row at a time that starts none of the
 * steps asked for is refused.
 *
 * <p><b>Limits.</b> VictoriaLogs caps no bucket count, but one request asks for at most {@value
 * #MAX_CELLS} steps times values, so one answer stays some megabytes; longer ranges are split
 * into pieces of whole buckets.
 */
public final class VictoriaLogsSearch implements KeyedSearch {

  /** The most (step, value) cells one request asks for. */
  public static final int MAX_CELLS = 200_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final VictoriaLogsBackend spec;
  private final String filter;
  private final CountQueries http;

  VictoriaLogsSearch(VictoriaLogsBackend spec, RunContext run) {
    this.spec = spec;
    this.filter = VictoriaLogsCountReader.runFilter(spec, run);
    this.http = new CountQueries("VictoriaLogs backend '" + spec.name() + "'", "victorialogs-search",
        spec.timeout(), spec.queryTimeout(), spec.requestHeaders(), spec.tls());
  }

  @Override
  public String language() {
    return "LogsQL";
  }

  @Override
  public String text(KeyedQuery q) {
    return logsql(q.key(), q.fromMillis(), Math.min(q.toMillis(), q.fromMillis() + piece(q) * q.bucketMillis()),
        step(q));
  }

  String logsql(String key, long from, long to, long step) {
    return filter + " _time:[" + Instant.ofEpochMilli(from) + ", " + Instant.ofEpochMilli(to) + ") | stats by (_time:"
        + Durations.format(Duration.ofMillis(step)) + ", " + key + ") count() hits";
  }

  /** The epoch-aligned step that tiles every bucket of {@code q}. */
  static long step(KeyedQuery q) {
    long phase = Math.floorMod(q.fromMillis(), q.bucketMillis());
    return phase == 0 ? q.bucketMillis() : VictoriaLogsCountReader.gcd(q.bucketMillis(), phase);
  }

  /** Buckets per request. */
  private static int piece(KeyedQuery q) {
    long perBucket = q.bucketMillis() / step(q) * Math.max(1, q.values().size());
    return (int) Math.max(1, MAX_CELLS / perBucket);
  }

  @Override
  public KeyedAnswer search(KeyedQuery q) throws IOException {
    KeyedAnswer answer = new KeyedAnswer(q);
    long step = step(q);
    int per = piece(q);
    for (int first = 0; first < q.buckets(); first += per) {
      int n = Math.min(per, q.buckets() - first);
      long a = q.bucketStart(first);
      long b = q.bucketStart(first + n);
      String what = "the search by " + q.key() + " over [" + Instant.ofEpochMilli(a) + ", " + Instant.ofEpochMilli(b)
          + ")";
      URI uri = URI.create(spec.url() + "/select/logsql/query?query=" + enc(logsql(q.key(), a, b, step)));
      read(http.get(uri, what), q, step, first, n, what, answer);
    }
    return answer;
  }

  /** Adds the rows of a stats answer to the buckets they fall in. */
  void read(byte[] body, KeyedQuery q, long step, int first, int n, String what, KeyedAnswer answer)
      throws IOException {
    for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode row;
      try {
        row = JSON.readTree(line);
      } catch (IOException e) {
        throw http.unreadable(what, "a line that is not JSON", e);
      }
      if (row == null || !row.path("_time").isTextual() || !row.has("hits")) {
        throw http.unreadable(what, "a row without _time and hits: " + line, null);
      }
      long t = millis(row.get("_time").asText(), what);
      int k = q.bucketOf(t);
      if (Math.floorMod(t, step) != 0 || k < first || k >= first + n) {
        throw http.unreadable(what, "a row at " + row.get("_time").asText() + " that starts none of the "
            + Durations.format(Duration.ofMillis(step)) + " steps asked for", null);
      }
      long hits;
      try {
        hits = Long.parseLong(row.get("hits").asText());
      } catch (NumberFormatException e) {
        throw http.unreadable(what, "a count that is not a whole number: " + row.get("hits"), e);
      }
      JsonNode value = row.path(q.key());
      answer.add(k, value.isMissingNode() || value.isNull() ? "" : value.asText(), hits);
    }
  }

  private long millis(String text, String what) throws IOException {
    try {
      OffsetDateTime t = OffsetDateTime.parse(text);
      if (t.getNano() % 1_000_000 != 0) {
        throw http.unreadable(what, "a bucket time that is not whole milliseconds: " + text, null);
      }
      return t.toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      throw http.unreadable(what, "a time that is not RFC 3339: " + text, e);
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
