package io.logbench.sink.splunk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.count.CountReader;
import io.logbench.count.internal.CountQueries;
import io.logbench.count.internal.ReaderSettings;
import io.logbench.count.internal.CountQueries.Answer;
import io.logbench.count.internal.WindowRange;
import io.logbench.http.TlsSettings;
import io.logbench.sink.RunContext;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Counts a Splunk index back per window with export searches ({@code POST
 * /services/search/jobs/export}, {@code output_mode=json}) running {@code | tstats count where
 * index=<idx> by _time span=<N>s} over {@code earliest_time}/{@code latest_time} = {@code [from,
 * to)} in epoch seconds, and with a run id {@code logbench_run=<id>} in the {@code where} clause
 * (the run's id is an indexed field of every event it sent), so only the run's events count.
 * Buckets are {@code [t, t + span)}; for spans under a day they are taken
 * to start on multiples of the span from the epoch (as the emulator does; not observed on a real
 * Splunk). When the windows do not start on that grid (say 1 day windows from a -03:00 midnight),
 * the span is the largest that divides both the window and the windows' offset, and its buckets
 * are added up per window. One search covers at most {@link Builder#maxBuckets} spans.
 *
 * <p>Splunk's search times are whole seconds here, so windows and their start must be whole
 * seconds; other windows are refused. Rows with {@code "preview":true} are ignored (export may
 * stream previews of a reporting search before its final rows); a {@code FATAL} or {@code ERROR}
 * message fails the count. The search credentials are sent as basic auth and never shown.
 */
public final class SplunkCountReader implements CountReader {

  public static final String DEFAULT_INDEX = "main";
  public static final int DEFAULT_MAX_BUCKETS = 10_000;
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(300);
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String url;
  private final String index;
  private final String runId;
  private final String user;
  private final String authorization;
  private final int maxBuckets;
  private final CountQueries http;

  private SplunkCountReader(Builder b) {
    this.url = b.url();
    this.index = b.index();
    this.runId = b.runId();
    this.user = b.user;
    this.authorization = b.authorization;
    this.maxBuckets = b.maxBuckets();
    this.http = new CountQueries(
        "Splunk search at " + b.url(), "splunk-count", b.connectTimeout(), b.requestTimeout(), Map.of(), b.tls());
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException {
    if (windowMillis % 1000 != 0) {
      throw new IllegalArgumentException(
          "Splunk counts whole seconds: a window of " + windowMillis + " ms is not a whole number of seconds.");
    }
    if (fromMillis % 1000 != 0) {
      throw new IllegalArgumentException(
          "Splunk counts whole seconds: the windows start at " + fromMillis + " ms, not on a whole second.");
    }
    WindowRange range = WindowRange.of(fromMillis, toMillis, windowMillis);
    long[] counts = new long[range.n()];
    long windowSeconds = windowMillis / 1000;
    long spanSeconds = gcd(windowSeconds, Math.floorMod(fromMillis / 1000, windowSeconds));
    long spansPerWindow = windowSeconds / spanSeconds;
    int windowsPerSearch = (int) Math.max(1, Math.min(range.n(), maxBuckets / spansPerWindow));
    for (int first = 0; first < range.n(); first += windowsPerSearch) {
      int last = Math.min(range.n(), first + windowsPerSearch);
      long from = range.start(first);
      long to = range.start(last);
      String search = "| tstats count where index=" + index + runTerm("=") + " by _time span=" + spanSeconds + "s";
      String what = "the count search for [" + from + ", " + to + ")";
      for (JsonNode row : export(search, from / 1000, to / 1000, what)) {
        long t = time(row.path("_time"), what);
        int k = range.indexOf(t);
        long count = row.path("count").asLong(-1);
        if (k < first || k >= last || Math.floorMod(t - from, spanSeconds * 1000) != 0 || count < 0) {
          throw new IOException(
              http.backend() + " answered a row " + row + " that is not a " + spanSeconds
                  + " s bucket of [" + from + ", " + to + ").");
        }
        counts[k] += count;
      }
    }
    return counts;
  }

  @Override
  public List<Long> sequenceIds(long fromMillis, long toMillis, int limit) throws IOException {
    List<Long> seqs = new ArrayList<>();
    if (limit <= 0 || toMillis <= fromMillis) {
      return seqs;
    }
    String search =
        "search index=" + index + runTerm("::") + " earliest=" + seconds(fromMillis) + " latest=" + seconds(toMillis)
            + " | fields seq | head " + limit;
    for (JsonNode row : export(search, null, null, "the sequence id search")) {
      JsonNode seq = row.path("seq");
      try {
        seqs.add(Long.parseLong(seq.asText()));
      } catch (NumberFormatException e) {
        throw new IOException(http.backend() + " answered an event without a numeric seq: " + row);
      }
      if (seqs.size() == limit) {
        break;
      }
    }
    return seqs;
  }

  /**
   * {@code " logbench_run<op><id>"} with a run id, else "": the run's events only. tstats reads
   * indexed fields, so {@code =} filters there; a plain search would look for the value among the
   * event's raw words first, so it gets {@code ::}, the indexed-field form.
   */
  String runTerm(String op) {
    return runId == null ? "" : " " + RunContext.RUN_FIELD + op + runId;
  }

  /** The final result rows of an export search. */
  List<JsonNode> export(String search, Long earliest, Long latest, String what) throws IOException {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("search", search);
    if (earliest != null) {
      form.put("earliest_time", Long.toString(earliest));
      form.put("latest_time", Long.toString(latest));
    }
    form.put("output_mode", "json");
    StringBuilder body = new StringBuilder();
    form.forEach(
        (k, v) -> body.append(body.length() == 0 ? "" : "&").append(k).append('=')
            .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    Answer a =
        http.send(
            http.request(URI.create(url + "/services/search/jobs/export"))
                .header("Authorization", authorization)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8))
                .build(),
            what);
    if (a.status() == 401) {
      throw new IOException(
          http.backend() + " refused the search credentials of user " + user
              + " (401); check search_user and search_password_env or search_password_file.");
    }
    if (a.status() != 200) {
      throw new IOException(http.backend() + " answered " + what + " with " + a.status() + ": " + a.shortText(300));
    }
    List<JsonNode> rows = new ArrayList<>();
    for (String line : a.text().split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode node;
      try {
        node = JSON.readTree(line);
      } catch (IOException e) {
        throw new IOException(http.backend() + " answered " + what + " with a line that is not JSON.", e);
      }
      for (JsonNode m : node.path("messages")) {
        String type = m.path("type").asText();
        if (type.equals("FATAL") || type.equals("ERROR")) {
          throw new IOException(http.backend() + " failed " + what + ": " + m.path("text").asText());
        }
      }
      if (node.path("preview").asBoolean(false) || !node.has("result")) {
        continue;
      }
      rows.add(node.get("result"));
    }
    return rows;
  }

  long time(JsonNode time, String what) throws IOException {
    String text = time.asText();
    try {
      if (text.matches("-?\\d+(\\.\\d+)?")) {
        return new BigDecimal(text).movePointRight(3).longValueExact();
      }
      return OffsetDateTime.parse(text).toInstant().toEpochMilli();
    } catch (ArithmeticException | DateTimeParseException e) {
      throw new IOException(http.backend() + " answered " + what + " with a _time that is not a time: " + text);
    }
  }

  /** Epoch seconds of {@code millis} with the milliseconds as a fraction (e.g. {@code 1619838000.250}). */
  static String seconds(long millis) {
    return BigDecimal.valueOf(millis, 3).toPlainString();
  }

  static long gcd(long a, long b) {
    return b == 0 ? a : gcd(b, a % b);
  }

  /** The index searched. */
  String index() {
    return index;
  }

  /** Where the searches go, for messages. */
  String backend() {
    return http.backend();
  }

  @Override
  public QueryStats stats() {
    return http.stats();
  }

  @Override
  public void close() {
    http.close();
  }

  @Override
  public String toString() {
    return "SplunkCountReader{" + url + ", index " + index + (runId == null ? "" : ", run " + runId)
        + ", user " + user + "}";
  }

  /** Settings of a reader; {@code url} and the credentials are required. */
  public static final class Builder extends ReaderSettings<Builder> {
    private String user;
    private String authorization;

    private Builder() {
      super(DEFAULT_INDEX, DEFAULT_MAX_BUCKETS, DEFAULT_REQUEST_TIMEOUT, DEFAULT_CONNECT_TIMEOUT);
    }

    /** The management (REST) base URL, e.g. {@code https://splunk:8089}. */
    @Override
    public Builder url(String url) {
      return super.url(url);
    }

    /** Basic-auth credentials of the searches (the password is kept only inside the header). */
    public Builder credentials(String user, String password) {
      this.user = user;
      this.authorization =
          "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
      return this;
    }

    public SplunkCountReader build() {
      Objects.requireNonNull(url, "The search URL of a Splunk count reader is required.");
      Objects.requireNonNull(authorization, "The search credentials of a Splunk count reader are required.");
      check("a Splunk count reader", Integer.MAX_VALUE, null);
      if (index == null || !index.matches("[A-Za-z0-9_][A-Za-z0-9_-]*")) {
        throw new IllegalArgumentException("The Splunk index " + index + " is not a valid index name.");
      }
      if (runId != null && !RunContext.RUN_ID.matcher(runId).matches()) {
        // it goes into the search unquoted
        throw new IllegalArgumentException("The run id " + runId + " is not a valid run id.");
      }
      return new SplunkCountReader(this);
    }
  }
}
