package io.logbench.sink.loki;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.count.VisibilityProbe;
import io.logbench.count.internal.ProbeRequests;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The visibility probe of a Loki backend: one instant query ({@code POST /loki/api/v1/query}) a
 * poll round counts every pending sample's milliseconds ({@link Reach#MILLISECONDS}), one leg per
 * sample told apart by a label:
 *
 * <pre>{@code
 * label_replace(sum(count_over_time(<lines> [R0] offset O0)), "s", "0", "", "")
 *   or label_replace(sum(count_over_time(<lines> [R1] offset O1)), "s", "1", "", "") ...
 * }</pre>
 *
 * at {@code time} = the latest sample's end. A point at {@code t} counts {@code (t - offset - R,
 * t - offset]}; logbench never stamps a line on a whole millisecond, so each leg counts exactly
 * the lines of {@code [fromMillis, toMillis)}. Loki takes offsets and ranges in whole
 * milliseconds only (a range in {@code ns} is a parse error, {@code offset 1ns} does nothing:
 * observed on 3.4.6), so one request cannot count a sample's own nanoseconds: the poller then
 * compares each count with the run's lines in those milliseconds. A leg without lines is left out
 * of the answer and counts 0. The run's count at its end is one such query, in legs of at most
 * {@code max_query_length} (30d1h) each.
 */
final class LokiProbe implements VisibilityProbe {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PATH = "/loki/api/v1/query";
  /** Each leg is a query of its own inside Loki: keep a round's request to a few dozen. */
  static final int MAX_SAMPLES = 50;
  /** A leg of the run's count: under Loki's default {@code max_query_length}. */
  static final long MAX_LEG_MILLIS = Duration.ofDays(30).toMillis();

  private final String lines;
  private final ProbeRequests http;

  LokiProbe(LokiBackend spec, RunContext run) {
    this.lines = LokiCountReader.runSelector(spec, run) + LokiCountReader.runFilter(spec, run);
    this.http = new ProbeRequests("Loki backend '" + spec.name() + "'", spec.url(), spec.requestHeaders(),
        spec.timeout(), spec.tls());
  }

  @Override
  public Reach reach() {
    return Reach.MILLISECONDS;
  }

  @Override
  public int maxSamples() {
    return MAX_SAMPLES;
  }

  @Override
  public void countSamples(List<Sample> samples, Answer answer) {
    if (samples.isEmpty()) {
      answer.counted(new long[0]);
      return;
    }
    long[][] ranges = new long[samples.size()][];
    for (int k = 0; k < ranges.length; k++) {
      ranges[k] = new long[] {samples.get(k).fromMillis(), samples.get(k).toMillis()};
    }
    ask(ranges, "the visibility count of " + samples.size() + " sample(s)", counts -> counts, answer);
  }

  @Override
  public void countRun(long fromMillis, long toMillis, long windowMillis, Answer answer) {
    int legs = (int) Math.max(1, (toMillis - fromMillis + MAX_LEG_MILLIS - 1) / MAX_LEG_MILLIS);
    long[][] ranges = new long[legs][];
    for (int k = 0; k < legs; k++) {
      long to = toMillis - k * MAX_LEG_MILLIS;
      ranges[k] = new long[] {Math.max(fromMillis, to - MAX_LEG_MILLIS), to};
    }
    ask(ranges, "the run's count", counts -> {
      long total = 0;
      for (long c : counts) {
        total += c;
      }
      return new long[] {total};
    }, answer);
  }

  /** What to answer with the legs' counts. */
  private interface Sum {
    long[] of(long[] counts);
  }

  private void ask(long[][] ranges, String what, Sum sum, Answer answer) {
    long at = Long.MIN_VALUE;
    for (long[] r : ranges) {
      at = Math.max(at, r[1]);
    }
    Map<String, String> form = new LinkedHashMap<>();
    form.put("query", query(lines, ranges, at));
    form.put("time", Long.toString(at * 1_000_000L));
    http.post(PATH, form, what, body -> sum.of(legs(body, ranges.length)), answer);
  }

  /** The query of legs {@code s0..} over {@code [from, to)} each, evaluated at {@code atMillis}. */
  static String query(String lines, long[][] ranges, long atMillis) {
    StringBuilder q = new StringBuilder();
    for (int k = 0; k < ranges.length; k++) {
      long range = ranges[k][1] - ranges[k][0];
      long offset = atMillis - ranges[k][1];
      q.append(k == 0 ? "" : " or ").append("label_replace(sum(count_over_time(").append(lines)
          .append(" [").append(LokiCountReader.duration(range)).append(']')
          .append(offset == 0 ? "" : " offset " + LokiCountReader.duration(offset))
          .append(")), \"s\", \"").append(k).append("\", \"\", \"\")");
    }
    return q.toString();
  }

  /** Each leg's count from a vector answer, 0 for a leg it leaves out. */
  static long[] legs(byte[] body, int n) throws IOException {
    JsonNode root = JSON.readTree(body);
    if (root == null || !"success".equals(root.path("status").asText())
        || !"vector".equals(root.path("data").path("resultType").asText())) {
      throw new IOException("not a successful vector answer");
    }
    long[] out = new long[n];
    for (JsonNode series : root.path("data").path("result")) {
      String s = series.path("metric").path("s").asText("");
      String v = series.path("value").path(1).asText("");
      if (!s.matches("[0-9]{1,9}") || Integer.parseInt(s) >= n || !v.matches("[0-9]{1,18}")) {
        throw new IOException("a series that is no leg asked for, or no whole count: " + series);
      }
      out[Integer.parseInt(s)] = Long.parseLong(v);
    }
    return out;
  }

  @Override
  public void close() {
    http.close();
  }
}
