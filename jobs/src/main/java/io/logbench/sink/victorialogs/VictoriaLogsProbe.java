package io.logbench.sink.victorialogs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.count.VisibilityProbe;
import io.logbench.count.internal.ProbeRequests;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The visibility probe of a VictoriaLogs backend: one {@code /select/logsql/query} a poll round
 * counts every pending sample exactly, by its lines' nanosecond interval ({@link
 * Reach#NANOSECONDS}; VictoriaLogs keeps and filters {@code _time} to the nanosecond):
 *
 * <pre>{@code
 * <run filter> _time:[a0, b1] (_time:[a0, b0] or _time:[a1, b1]) | stats count() if (_time:[a0, b0]) s0, count() if (_time:[a1, b1]) s1
 * }</pre>
 *
 * answered with one JSON line, {@code {"s0":"100","s1":"37"}}. The plain range from the earliest
 * sample's first line to the latest one's last is what VictoriaLogs narrows its search by (an
 * {@code or} of ranges alone is checked block by block over every part the server holds): on 1 M
 * stored lines, 0.9 ms of server CPU a query with it against 4.1 ms without, and the latter grows
 * with the store (docs/benchmarks.md, twenty-third round). The run's count at its end is
 * {@code <run filter> _time:[from, to) | stats count() n}. Both are POSTs on the senders'
 * non-blocking transport; see {@link ProbeRequests}.
 */
final class VictoriaLogsProbe implements VisibilityProbe {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PATH = "/select/logsql/query";

  private final String filter;
  private final ProbeRequests http;

  VictoriaLogsProbe(VictoriaLogsBackend spec, RunContext run) {
    this.filter = VictoriaLogsCountReader.runFilter(spec, run);
    this.http = new ProbeRequests("VictoriaLogs backend '" + spec.name() + "'", spec.url(), spec.requestHeaders(),
        spec.timeout(), spec.tls());
  }

  @Override
  public Reach reach() {
    return Reach.NANOSECONDS;
  }

  @Override
  public void countSamples(List<Sample> samples, Answer answer) {
    if (samples.isEmpty()) {
      answer.counted(new long[0]);
      return;
    }
    http.post(PATH, Map.of("query", samplesQuery(filter, samples)),
        "the visibility count of " + samples.size() + " sample(s)", body -> stats(body, samples.size()), answer);
  }

  /**
   * The query that counts each sample's interval as {@code s<k>}, in one pass over their union,
   * within the range that spans them all.
   */
  static String samplesQuery(String filter, List<Sample> samples) {
    StringBuilder any = new StringBuilder();
    StringBuilder stats = new StringBuilder();
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (int k = 0; k < samples.size(); k++) {
      first = Math.min(first, samples.get(k).firstNanos());
      last = Math.max(last, samples.get(k).lastNanos());
      String range = "_time:[" + VictoriaLogsCountReader.rfc3339(samples.get(k).firstNanos()) + ", "
          + VictoriaLogsCountReader.rfc3339(samples.get(k).lastNanos()) + "]";
      any.append(k == 0 ? "" : " or ").append(range);
      stats.append(k == 0 ? "" : ", ").append("count() if (").append(range).append(") s").append(k);
    }
    return filter + " _time:[" + VictoriaLogsCountReader.rfc3339(first) + ", " + VictoriaLogsCountReader.rfc3339(last)
        + "] (" + any + ") | stats " + stats;
  }

  @Override
  public void countRun(long fromMillis, long toMillis, long windowMillis, Answer answer) {
    String query = filter + " _time:[" + Instant.ofEpochMilli(fromMillis) + ", " + Instant.ofEpochMilli(toMillis)
        + ") | stats count() s0";
    http.post(PATH, Map.of("query", query), "the run's count", body -> stats(body, 1), answer);
  }

  /** The counts {@code s0 .. s<n-1>} of a stats answer's one line. */
  static long[] stats(byte[] body, int n) throws IOException {
    JsonNode row = JSON.readTree(body);
    if (row == null || !row.isObject()) {
      throw new IOException("no stats row");
    }
    long[] out = new long[n];
    for (int k = 0; k < n; k++) {
      JsonNode v = row.get("s" + k);
      String text = v == null ? null : v.asText();
      if (text == null || !text.matches("[0-9]{1,18}")) {
        throw new IOException("no whole count s" + k + " in " + row);
      }
      out[k] = Long.parseLong(text);
    }
    return out;
  }

  @Override
  public void close() {
    http.close();
  }
}
