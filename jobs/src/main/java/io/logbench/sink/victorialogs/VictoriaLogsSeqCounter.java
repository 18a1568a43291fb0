package io.logbench.sink.victorialogs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.count.CountReader.QueryStats;
import io.logbench.count.SeqCounter;
import io.logbench.count.internal.CountQueries;
import io.logbench.pipeline.LineStamp;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Counts a run's lines in VictoriaLogs by the sequence id in their bodies, for a count block
 * behind a pipeline's write: whatever the agent made of the record, the run's id and the line's
 * id are found as fields ({@code logbench_run}, {@code logbench_seq}: the agent parsed the JSON
 * line), else in {@code _msg} as JSON or logfmt ({@code unpack_json}, {@code unpack_logfmt},
 * keeping fields already there), and counted per id range with one {@code stats} of conditional
 * counts: {@code count() if (logbench_seq:range[a, b)) w0, ...}, at most {@value
 * #RANGES_PER_QUERY} ranges a query, over {@code _time:[from, to)}.
 */
final class VictoriaLogsSeqCounter implements SeqCounter {

  /** The most id ranges one query counts. */
  static final int RANGES_PER_QUERY = 200;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final VictoriaLogsBackend spec;
  private final String runId;
  private final CountQueries http;

  VictoriaLogsSeqCounter(VictoriaLogsBackend spec, String runId) {
    SeqCounter.requireRun(spec.name(), runId);
    this.spec = spec;
    this.runId = runId;
    this.http = new CountQueries("VictoriaLogs backend '" + spec.name() + "'", "victorialogs-seq", spec.timeout(),
        spec.queryTimeout(), spec.requestHeaders(), spec.tls());
  }

  /** The filter and pipes that keep the run's lines with their ids as fields, over {@code [from, to)}. */
  String runLines(long fromMillis, long toMillis) {
    String run = VictoriaLogsCountReader.quote(runId);
    String ids = "fields (" + LineStamp.RUN + ", " + LineStamp.SEQ + ") keep_original_fields";
    return "_time:[" + Instant.ofEpochMilli(fromMillis) + ", " + Instant.ofEpochMilli(toMillis) + ") ("
        + LineStamp.RUN + ":=" + run + " or " + run + ")"
        + " | unpack_json from _msg " + ids + " | unpack_logfmt from _msg " + ids
        + " | filter " + LineStamp.RUN + ":=" + run;
  }

  /** The query counting the ranges {@code [bounds[k], bounds[k + 1])} for {@code k} in {@code [first, end)}. */
  String countQuery(long[] bounds, int first, int end, long fromMillis, long toMillis) {
    StringBuilder q = new StringBuilder(runLines(fromMillis, toMillis)).append(" | stats ");
    for (int k = first; k < end; k++) {
      if (k > first) {
        q.append(", ");
      }
      q.append("count() if (").append(LineStamp.SEQ).append(":range[").append(bounds[k]).append(", ")
          .append(bounds[k + 1]).append(")) w").append(k - first);
    }
    return q.toString();
  }

  @Override
  public long[] counts(long[] bounds, long fromMillis, long toMillis) throws IOException {
    int n = bounds.length - 1;
    long[] out = new long[Math.max(0, n)];
    for (int first = 0; first < n; first += RANGES_PER_QUERY) {
      int end = Math.min(n, first + RANGES_PER_QUERY);
      String what = "the count by sequence id of ids [" + bounds[first] + ", " + bounds[end] + ")";
      List<JsonNode> rows = query(countQuery(bounds, first, end, fromMillis, toMillis), 0, what);
      if (rows.size() != 1) {
        throw http.unreadable(what, rows.size() + " rows where one was expected", null);
      }
      JsonNode row = rows.get(0);
      for (int k = first; k < end; k++) {
        JsonNode v = row.get("w" + (k - first));
        long c = v == null ? -1 : v.asLong(-1);
        if (c < 0 || !(v.isTextual() || v.isIntegralNumber()) || !v.asText().matches("[0-9]+")) {
          throw http.unreadable(what, "no whole count w" + (k - first), null);
        }
        out[k] = c;
      }
    }
    return out;
  }

  @Override
  public List<Long> sequenceIds(long firstId, long endId, long fromMillis, long toMillis, int limit)
      throws IOException {
    List<Long> ids = new ArrayList<>();
    if (limit <= 0 || endId <= firstId) {
      return ids;
    }
    String what = "the list of ids [" + firstId + ", " + endId + ")";
    String q = runLines(fromMillis, toMillis) + " " + LineStamp.SEQ + ":range[" + firstId + ", " + endId + ")"
        + " | fields " + LineStamp.SEQ;
    for (JsonNode row : query(q, limit, what)) {
      String v = row.path(LineStamp.SEQ).asText("");
      if (!v.matches("[0-9]{1,18}")) {
        throw http.unreadable(what, "a row whose " + LineStamp.SEQ + " is not an id: " + v, null);
      }
      ids.add(Long.parseLong(v));
    }
    return ids;
  }

  private List<JsonNode> query(String query, int limit, String what) throws IOException {
    String form = "query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + (limit > 0 ? "&limit=" + limit : "");
    HttpRequest request = http.request(URI.create(spec.url() + "/select/logsql/query"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build();
    CountQueries.Answer a = http.send(request, what);
    if (a.status() != 200) {
      throw new IOException(http.backend() + " answered " + a.status() + " to " + what + ": " + a.shortText(300));
    }
    List<JsonNode> rows = new ArrayList<>();
    for (String line : a.text().split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      try {
        rows.add(JSON.readTree(line));
      } catch (IOException e) {
        throw http.unreadable(what, "not JSON lines", e);
      }
    }
    return rows;
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
