package io.logbench.sink.loki;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import com.sun.net.httpserver.HttpExchange;
import io.logbench.sink.emulator.HttpEmulator;
import io.logbench.sink.emulator.HttpFaults;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.xerial.snappy.Snappy;

/**
 * A Grafana Loki emulator for tests: {@code POST /loki/api/v1/push} (JSON, and protobuf in a
 * snappy block) with Loki's behaviours from BACKENDS.md (identical lines dropped with 204, old
 * samples rejected with 400 while the valid entries are stored, out-of-order beyond 1 h per
 * stream rejected (answered, as Loki 3.4.6 answers, for the push's last stream only: 204 when
 * that stream took every entry), rate limit 429, max line size, tenant header when auth is on), and {@code GET
 * /loki/api/v1/query_range} and {@code /loki/api/v1/query} for {@code
 * sum(count_over_time({selector} [| label filters] [W] [offset D]))} with Loki's window and step
 * semantics and limits (an instant query also as legs {@code label_replace(<that>, "s", "0", "",
 * "") or ...}, each leg labelled, empty ones left out, as the visibility probe asks; parameters in
 * the URL or, for a POST, a form body), and log queries {@code {selector} [| label filters]} over [start, end)
 * with {@code direction} and {@code limit} (at most max_entries_limit_per_query, 5000). Selectors
 * and label filters take =, !=, =~ and !~ (anchored regexes); selectors need one matcher that does
 * not match the empty string.
 *
 * <p>Structured metadata (Loki 3.x): a JSON entry's third element, an object of string keys and
 * values, and a protobuf EntryAdapter's {@code structuredMetadata = 3} (LabelPairAdapter {@code
 * {name = 1, value = 2}}) are kept per entry; label filters see the stream's labels and the
 * entry's structured metadata (a missing label is ""), and log query results group entries by
 * both, as Loki answers without the categorize-labels encoding flag. As in Loki, an entry
 * identical in stream, timestamp and line to a stored one is dropped whatever its structured
 * metadata, and with {@link #allowStructuredMetadata} off ({@code
 * limits_config.allow_structured_metadata: false}) a push carrying any is refused with Loki's 400.
 * {@link #queryFaults()} injects faults into queries apart from pushes.
 */
public final class LokiEmulator extends HttpEmulator {

  /** Loki's tenant when auth is disabled. */
  public static final String NO_AUTH_TENANT = "fake";

  static final String STEP_TOO_SMALL =
      "exceeded maximum resolution of 11,000 points per timeseries. Try increasing the value of the"
          + " step parameter";
  /** {@code sum [by (a, b)] (count_over_time(<selection> [W] [offset D]))}: the by labels, the rest. */
  private static final Pattern COUNT_QUERY =
      Pattern.compile("\\s*sum\\s*(?:by\\s*\\(\\s*([a-zA-Z_][a-zA-Z0-9_]*(?:\\s*,\\s*[a-zA-Z_][a-zA-Z0-9_]*)*)\\s*\\)\\s*)?"
          + "\\(\\s*count_over_time\\s*\\(\\s*(\\{.*)\\)\\s*\\)\\s*");
  /** What follows a count query's selector: label filters, the range and an offset. */
  private static final Pattern RANGE = Pattern.compile("(.*?)\\s*\\[([0-9a-z]+)\\](?:\\s+offset\\s+([0-9a-z]+))?\\s*");
  /** One label filter stage of a pipeline, {@code | name op "value"}. */
  private static final Pattern LABEL_FILTER =
      Pattern.compile("\\s*\\|\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!=|!~|==|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\s*");
  /** Loki's documented default of {@code max_entries_limit_per_query}. */
  static final int MAX_ENTRIES_LIMIT_PER_QUERY = 5000;
  private static final Pattern MATCHER =
      Pattern.compile("\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!=|!~|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\s*(,|$)");
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d|w|y)");
  /** One leg of an instant query of labelled counts, and the {@code or} after it. */
  private static final Pattern LEG = Pattern.compile("label_replace\\((sum\\s*\\(.*?\\))\\s*,\\s*\"([a-zA-Z_]\\w*)\"\\s*,"
      + "\\s*\"([^\"]*)\"\\s*,\\s*\"\"\\s*,\\s*\"\"\\s*\\)(?:\\s+or\\s+|\\s*$)");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One stored line, with its structured metadata (empty when it has none). */
  public record Entry(String tenant, String labels, Map<String, String> labelMap, long nanos, String line,
      Map<String, String> metadata) {

    /** What label filters and query results see: the stream's labels and the structured metadata. */
    Map<String, String> allLabels() {
      if (metadata.isEmpty()) {
        return labelMap;
      }
      Map<String, String> all = new TreeMap<>(labelMap);
      all.putAll(metadata);
      return all;
    }
  }

  /** One stream of the last push, as received: per entry its time, line and structured metadata. */
  public record PushedStream(String labels, List<long[]> nanos, List<String> lines,
      List<Map<String, String>> metadata) {}

  /** The last push as received: headers and decoded content. */
  public record Push(String contentType, String contentEncoding, String tenant, String authorization,
      List<PushedStream> streams) {}

  private final List<Entry> stored = new ArrayList<>();
  private final Set<String> seen = new HashSet<>();
  private final Map<String, Long> newestByStream = new TreeMap<>();
  private final AtomicLong pushes = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong lost = new AtomicLong();
  private volatile Push lastPush;
  private final HttpFaults queryFaults = new HttpFaults();
  private final AtomicLong queriesReceived = new AtomicLong();
  private volatile Map<String, String> lastQueryParams;
  private volatile String lastQueryAuthorization;

  /** Per tenant: bytes of lines not flushed yet, and the streams ("tenant\0labels") they are in. */
  private final Map<String, Long> memoryBytes = new TreeMap<>();
  private final Set<String> memoryStreams = new HashSet<>();
  /** What a queued flush takes, until it is done. */
  private final Map<String, Long> flushingBytes = new TreeMap<>();
  private final Set<String> flushingStreams = new HashSet<>();
  private final Map<String, Long> flushedBytes = new TreeMap<>();
  private final Map<String, Long> flushedChunks = new TreeMap<>();
  private long forcedFlushes;
  private long flushQueued;
  private long flushDoneNanos;
  private volatile Duration flushTakes = Duration.ZERO;
  private volatile boolean flushStalls;

  private volatile boolean authEnabled;
  private volatile boolean allowStructuredMetadata = true;
  private volatile Duration rejectOldSamplesMaxAge;
  private volatile int maxLineSize = 256 * 1024;
  private volatile Duration outOfOrderWindow = Duration.ofHours(1);
  private volatile Duration maxQueryLength = Duration.ofDays(30).plusHours(1);
  private volatile int maxQuerySeries = 500;
  private volatile long rateBytesPerSecond;
  private volatile long burstBytes;
  private double tokens;
  private long tokensAtNanos;
  private volatile LongSupplier clockNanos =
      () -> {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
      };

  public LokiEmulator() {}

  /**
   * {@code limits_config.max_query_series} (500, Loki's default): a metric query answering more
   * series is refused with 400.
   */
  public LokiEmulator maxQuerySeries(int series) {
    this.maxQuerySeries = series;
    return this;
  }

  /** Requires {@code X-Scope-OrgID} (401 "no org id" without it). */
  public LokiEmulator authEnabled(boolean on) {
    this.authEnabled = on;
    return this;
  }

  /**
   * {@code limits_config.allow_structured_metadata} (true by default, as in Loki 3.x): when off, a
   * push with structured metadata is refused with 400.
   */
  public LokiEmulator allowStructuredMetadata(boolean on) {
    this.allowStructuredMetadata = on;
    return this;
  }

  /** Turns {@code reject_old_samples} on with {@code maxAge}, or off with null (the default here). */
  public LokiEmulator rejectOldSamples(Duration maxAge) {
    this.rejectOldSamplesMaxAge = maxAge;
    return this;
  }

  public LokiEmulator maxLineSize(int bytes) {
    this.maxLineSize = bytes;
    return this;
  }

  /** Per-tenant ingestion limit, token bucket of {@code burst} bytes; 0 turns it off (default). */
  public synchronized LokiEmulator ingestionRate(long bytesPerSecond, long burst) {
    this.rateBytesPerSecond = bytesPerSecond;
    this.burstBytes = burst;
    this.tokens = burst;
    this.tokensAtNanos = System.nanoTime();
    return this;
  }

  /** The emulator's "now" for reject_old_samples and default query times. */
  public LokiEmulator clock(LongSupplier epochNanos) {
    this.clockNanos = epochNanos;
    return this;
  }

  public long pushesReceived() {
    return pushes.get();
  }

  public synchronized int linesStored() {
    return stored.size();
  }

  public long duplicatesDropped() {
    return duplicates.get();
  }

  public long linesLost() {
    return lost.get();
  }

  /** Faults injected into the next queries ({@link #faults()} acts on pushes only). */
  public HttpFaults queryFaults() {
    return queryFaults;
  }

  /** Queries received on query_range and query. */
  public long queriesReceived() {
    return queriesReceived.get();
  }

  /** The decoded parameters of the last query. */
  public Map<String, String> lastQueryParams() {
    return lastQueryParams;
  }

  /** The Authorization header of the last query, or null. */
  public String lastQueryAuthorization() {
    return lastQueryAuthorization;
  }

  public Push lastPush() {
    return lastPush;
  }

  public synchronized List<Entry> entries() {
    return List.copyOf(stored);
  }

  /**
   * Removes the stored lines that match {@code which} (a loss after the fact, as a compactor or a
   * lost chunk would make); returns how many. A line pushed again later is still dropped as a
   * duplicate of the removed one.
   */
  public synchronized int deleteWhere(java.util.function.Predicate<Entry> which) {
    int before = stored.size();
    stored.removeIf(which);
    return before - stored.size();
  }

  @Override
  protected void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getPath();
    switch (path) {
      case "/loki/api/v1/push" -> {
        if (!"POST".equals(ex.getRequestMethod())) {
          respondText(ex, 405, "method not allowed");
          return;
        }
        pushes.incrementAndGet();
        HttpFaults.Fault fault = applyFault(ex);
        if (fault != null) {
          push(ex, fault.kind() == HttpFaults.Kind.LOSE ? fault.lines() : 0);
        }
      }
      case "/loki/api/v1/query_range" -> {
        if (applyFault(ex, queryFaults) != null) {
          query(ex, true);
        }
      }
      case "/loki/api/v1/query" -> {
        if (applyFault(ex, queryFaults) != null) {
          query(ex, false);
        }
      }
      case "/flush" -> {
        if (!"POST".equals(ex.getRequestMethod())) {
          respondText(ex, 405, "method not allowed");
          return;
        }
        flush();
        respond(ex, 204, null, new byte[0]);
      }
      case "/ready" -> respondText(ex, 200, "ready");
      case "/metrics" -> respond(ex, 200, "text/plain; version=0.0.4", metrics().getBytes(StandardCharsets.UTF_8));
      default -> respondText(ex, 404, "404 page not found");
    }
  }

  /** Queues a flush of every chunk in memory, done {@link #flushTakes} from now (never when {@link #flushStalls}). */
  private synchronized void flush() {
    flushQueued += memoryStreams.size();
    flushingBytes.putAll(memoryBytes);
    flushingStreams.addAll(memoryStreams);
    memoryBytes.clear();
    memoryStreams.clear();
    flushDoneNanos = System.nanoTime() + flushTakes.toNanos();
  }

  /** Finishes a queued flush whose time has come. */
  private void finishFlush() {
    if (flushQueued == 0 || flushStalls || System.nanoTime() < flushDoneNanos) {
      return;
    }
    flushingBytes.forEach((t, n) -> flushedBytes.merge(t, n, Long::sum));
    for (String stream : flushingStreams) {
      flushedChunks.merge(stream.substring(0, stream.indexOf('\u0000')), 1L, Long::sum);
    }
    forcedFlushes += flushingStreams.size();
    flushingBytes.clear();
    flushingStreams.clear();
    flushQueued = 0;
  }

  /**
   * How long a flush ({@code POST /flush}) takes until its chunks are stored (0 by default); the
   * metrics show it queued until then.
   */
  public LokiEmulator flushTakes(Duration d) {
    this.flushTakes = d;
    return this;
  }

  /** A flush that never finishes: its operations stay queued (a store that refuses every write). */
  public LokiEmulator flushStalls(boolean on) {
    this.flushStalls = on;
    return this;
  }

  /** The {@code /metrics} page as the emulator serves it now. */
  public String metricsPage() {
    return metrics();
  }

  /** Flushes asked for with {@code POST /flush}. */
  public synchronized long forcedFlushes() {
    return forcedFlushes;
  }

  /**
   * The ingester's flush metrics as Loki 3.4.6 names them, of the emulator's own figures: a
   * stream's lines held since the last flush are one chunk in memory ({@code
   * loki_ingester_memory_chunks}) whose bytes are the lines' (uncompressed, not a server's
   * encoding); {@code POST /flush} queues one operation per such chunk ({@code
   * loki_ingester_flush_queue_length}) and, once done, counts it in {@code
   * loki_ingester_chunks_flushed_total{reason="forced"}}, {@code
   * loki_ingester_chunks_stored_total{tenant}} and its bytes in {@code
   * loki_ingester_chunk_stored_bytes_total{tenant}}. As on the server, lines never flushed are in
   * no stored figure.
   */
  private synchronized String metrics() {
    finishFlush();
    StringBuilder b = new StringBuilder();
    b.append("# HELP loki_ingester_chunk_stored_bytes_total (emulator) bytes of flushed lines, per tenant\n")
        .append("# TYPE loki_ingester_chunk_stored_bytes_total counter\n");
    flushedBytes.forEach((t, n) -> b.append("loki_ingester_chunk_stored_bytes_total{tenant=\"").append(t).append("\"} ")
        .append(n).append('\n'));
    b.append("# TYPE loki_ingester_chunks_stored_total counter\n");
    flushedChunks.forEach((t, n) -> b.append("loki_ingester_chunks_stored_total{tenant=\"").append(t).append("\"} ")
        .append(n).append('\n'));
    b.append("# TYPE loki_ingester_chunks_flushed_total counter\n")
        .append("loki_ingester_chunks_flushed_total{reason=\"forced\"} ").append(forcedFlushes).append('\n');
    b.append("# TYPE loki_ingester_flush_queue_length gauge\n")
        .append("loki_ingester_flush_queue_length ").append(flushQueued).append('\n');
    b.append("# TYPE loki_ingester_memory_chunks gauge\n")
        .append("loki_ingester_memory_chunks ").append(memoryStreams.size() + flushingStreams.size()).append('\n');
    return b.toString();
  }

  private String tenant(HttpExchange ex) throws IOException {
    String tenant = ex.getRequestHeaders().getFirst("X-Scope-OrgID");
    if (!authEnabled) {
      return NO_AUTH_TENANT;
    }
    if (tenant == null || tenant.isEmpty()) {
      respondText(ex, 401, "no org id\n");
      return null;
    }
    return tenant;
  }

  private record Incoming(String labels, Map<String, String> labelMap, long nanos, String line,
      Map<String, String> metadata) {}

  private void push(HttpExchange ex, int lose) throws IOException {
    String tenant = tenant(ex);
    if (tenant == null) {
      return;
    }
    String contentType = ex.getRequestHeaders().getFirst("Content-Type");
    byte[] raw = body(ex);
    List<PushedStream> streams;
    try {
      if (contentType != null && contentType.startsWith("application/x-protobuf")) {
        streams = decodeProtobuf(Snappy.uncompress(raw));
      } else if (contentType != null && contentType.startsWith("application/json")) {
        streams = decodeJson(raw);
      } else {
        respondText(ex, 415, "unsupported Content-Type: " + contentType + "\n");
        return;
      }
    } catch (IOException | RuntimeException e) {
      respondText(ex, 400, "loghttp.PushRequest: cannot parse the push body: " + e.getMessage() + "\n");
      return;
    }
    lastPush =
        new Push(contentType, ex.getRequestHeaders().getFirst("Content-Encoding"),
            ex.getRequestHeaders().getFirst("X-Scope-OrgID"),
            ex.getRequestHeaders().getFirst("Authorization"), streams);
    String answer = store(tenant, streams, lose);
    if (answer == null) {
      respond(ex, 204, null, new byte[0]);
    } else if (answer.startsWith("429 ")) {
      respondText(ex, 429, answer.substring(4) + "\n");
    } else {
      respondText(ex, 400, answer + "\n");
    }
  }

  /** Stores a push like Loki: null for 204, else the error text (prefixed "429 " for 429). */
  private synchronized String store(String tenant, List<PushedStream> streams, int lose) {
    long bytes = 0;
    int lines = 0;
    for (PushedStream s : streams) {
      for (String l : s.lines()) {
        bytes += l.getBytes(StandardCharsets.UTF_8).length;
        lines++;
      }
    }
    if (rateBytesPerSecond > 0) {
      long now = System.nanoTime();
      tokens = Math.min(burstBytes, tokens + (now - tokensAtNanos) / 1e9 * rateBytesPerSecond);
      tokensAtNanos = now;
      if (bytes > tokens) {
        return "429 Ingestion rate limit exceeded for user " + tenant + " (limit: " + rateBytesPerSecond
            + " bytes/sec) while attempting to ingest '" + lines + "' lines totaling '" + bytes
            + "' bytes, reduce log volume or contact your Loki administrator to see if the limit can"
            + " be increased";
      }
      tokens -= bytes;
    }
    List<String> validation = new ArrayList<>();
    Map<String, List<Incoming>> valid = new LinkedHashMap<>();
    long now = clockNanos.getAsLong();
    for (PushedStream s : streams) {
      if (!allowStructuredMetadata && s.metadata().stream().anyMatch(m -> !m.isEmpty())) {
        // the distributor refuses the whole push before anything is stored
        return "stream '" + canonical(parseLabels(s.labels())) + "' includes structured metadata, but this"
            + " feature is disallowed. Please see `limits_config.allow_structured_metadata` or contact your"
            + " Loki administrator to enable it.";
      }
    }
    for (PushedStream s : streams) {
      Map<String, String> labelMap = parseLabels(s.labels());
      String labels = canonical(labelMap);
      for (int i = 0; i < s.lines().size(); i++) {
        long ns = s.nanos().get(i)[0];
        String line = s.lines().get(i);
        int size = line.getBytes(StandardCharsets.UTF_8).length;
        if (size > maxLineSize) {
          validation.add("Max entry size '" + maxLineSize + "' bytes exceeded for stream '" + labels
              + "' while adding an entry with length '" + size + "' bytes");
        } else if (rejectOldSamplesMaxAge != null && ns < now - rejectOldSamplesMaxAge.toNanos()) {
          validation.add("entry for stream '" + labels + "' has timestamp too old: "
              + rfc3339(ns) + ", oldest acceptable timestamp is: "
              + rfc3339(now - rejectOldSamplesMaxAge.toNanos()));
        } else {
          valid.computeIfAbsent(labels, k -> new ArrayList<>())
              .add(new Incoming(labels, labelMap, ns, line, s.metadata().get(i)));
        }
      }
    }
    List<String> ingester = new ArrayList<>();
    List<Entry> added = new ArrayList<>();
    for (Map.Entry<String, List<Incoming>> e : valid.entrySet()) {
      String streamKey = tenant + e.getKey();
      List<String> failures = new ArrayList<>();
      for (Incoming in : e.getValue()) {
        // as Loki's ingester: timestamp and line, never the structured metadata
        String key = streamKey + "\u0000" + in.nanos() + "\u0000" + in.line();
        if (seen.contains(key)) {
          duplicates.incrementAndGet();
          continue;
        }
        Long newest = newestByStream.get(streamKey);
        long cutoff = newest == null ? Long.MIN_VALUE : newest - outOfOrderWindow.toNanos();
        if (in.nanos() < cutoff) {
          failures.add("entry with timestamp " + goTime(in.nanos()) + " ignored, reason: 'entry too far"
              + " behind, entry timestamp is: " + rfc3339(in.nanos())
              + ", oldest acceptable timestamp is: " + rfc3339(cutoff) + "',");
          continue;
        }
        seen.add(key);
        newestByStream.put(streamKey, newest == null ? in.nanos() : Math.max(newest, in.nanos()));
        Entry stored = new Entry(tenant, in.labels(), in.labelMap(), in.nanos(), in.line(), in.metadata());
        added.add(stored);
      }
      // Loki 3.4.6's ingester keeps the error of the last stream it appends (instance.Push):
      // rejections of the push's earlier streams are dropped from the answer
      ingester.clear();
      if (!failures.isEmpty()) {
        StringBuilder b = new StringBuilder();
        // Loki lists at most 10 ignored entries per stream (max_returned_errors).
        for (String f : failures.subList(0, Math.min(10, failures.size()))) {
          b.append(f).append('\n');
        }
        b.append("user '").append(tenant).append("', total ignored: ").append(failures.size())
            .append(" out of ").append(e.getValue().size()).append(" for stream: ").append(e.getKey());
        ingester.add(b.toString());
      }
    }
    int keep = Math.max(0, added.size() - lose);
    lost.addAndGet(added.size() - keep);
    stored.addAll(added.subList(0, keep));
    for (Entry e : added.subList(0, keep)) {
      memoryBytes.merge(e.tenant(), (long) e.line().getBytes(StandardCharsets.UTF_8).length, Long::sum);
      memoryStreams.add(e.tenant() + "\u0000" + e.labels());
    }
    if (!ingester.isEmpty()) {
      return String.join("\n", ingester);
    }
    return validation.isEmpty() ? null : String.join("\n", validation);
  }

  private static List<PushedStream> decodeJson(byte[] raw) throws IOException {
    JsonNode root = JSON.readTree(raw);
    List<PushedStream> out = new ArrayList<>();
    for (JsonNode s : root.get("streams")) {
      Map<String, String> labels = new LinkedHashMap<>();
      Iterator<Map.Entry<String, JsonNode>> fields = s.get("stream").fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        labels.put(f.getKey(), f.getValue().asText());
      }
      List<long[]> nanos = new ArrayList<>();
      List<String> lines = new ArrayList<>();
      List<Map<String, String>> metadata = new ArrayList<>();
      for (JsonNode v : s.get("values")) {
        nanos.add(new long[] {Long.parseLong(v.get(0).asText())});
        lines.add(v.get(1).asText());
        Map<String, String> m = new TreeMap<>();
        if (v.size() > 2) {
          JsonNode sm = v.get(2);
          if (!sm.isObject()) {
            throw new IllegalArgumentException("structured metadata is not a JSON object: " + sm);
          }
          Iterator<Map.Entry<String, JsonNode>> pairs = sm.fields();
          while (pairs.hasNext()) {
            Map.Entry<String, JsonNode> pair = pairs.next();
            if (!pair.getValue().isTextual()) {
              // Loki's push API takes only string values here
              throw new IllegalArgumentException("structured metadata value of " + pair.getKey() + " is not a string");
            }
            m.put(pair.getKey(), pair.getValue().asText());
          }
        }
        metadata.add(m);
      }
      out.add(new PushedStream(canonical(labels), nanos, lines, metadata));
    }
    return out;
  }

  static List<PushedStream> decodeProtobuf(byte[] raw) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(raw);
    List<PushedStream> out = new ArrayList<>();
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      if (WireFormat.getTagFieldNumber(tag) != 1) {
        in.skipField(tag);
        continue;
      }
      int limit = in.pushLimit(in.readRawVarint32());
      String labels = "";
      List<long[]> nanos = new ArrayList<>();
      List<String> lines = new ArrayList<>();
      List<Map<String, String>> metadata = new ArrayList<>();
      while (!in.isAtEnd()) {
        int t = in.readTag();
        switch (WireFormat.getTagFieldNumber(t)) {
          case 1 -> labels = in.readString();
          case 2 -> {
            int entryLimit = in.pushLimit(in.readRawVarint32());
            long seconds = 0;
            int ns = 0;
            String line = "";
            Map<String, String> pairs = new TreeMap<>();
            while (!in.isAtEnd()) {
              int et = in.readTag();
              if (WireFormat.getTagFieldNumber(et) == 1) {
                int tsLimit = in.pushLimit(in.readRawVarint32());
                while (!in.isAtEnd()) {
                  int tt = in.readTag();
                  switch (WireFormat.getTagFieldNumber(tt)) {
                    case 1 -> seconds = in.readInt64();
                    case 2 -> ns = in.readInt32();
                    default -> in.skipField(tt);
                  }
                }
                in.popLimit(tsLimit);
              } else if (WireFormat.getTagFieldNumber(et) == 2) {
                line = in.readStringRequireUtf8();
              } else if (WireFormat.getTagFieldNumber(et) == 3) {
                // LabelPairAdapter {name = 1, value = 2}
                int pairLimit = in.pushLimit(in.readRawVarint32());
                String name = "";
                String value = "";
                while (!in.isAtEnd()) {
                  int pt = in.readTag();
                  switch (WireFormat.getTagFieldNumber(pt)) {
                    case 1 -> name = in.readStringRequireUtf8();
                    case 2 -> value = in.readStringRequireUtf8();
                    default -> in.skipField(pt);
                  }
                }
                in.popLimit(pairLimit);
                pairs.put(name, value);
              } else {
                in.skipField(et);
              }
            }
            in.popLimit(entryLimit);
            nanos.add(new long[] {seconds * 1_000_000_000L + ns});
            lines.add(line);
            metadata.add(pairs);
          }
          default -> in.skipField(t);
        }
      }
      in.popLimit(limit);
      out.add(new PushedStream(labels, nanos, lines, metadata));
    }
    return out;
  }

  /** Labels from Prometheus form {@code {a="b", c="d"}}. */
  static Map<String, String> parseLabels(String text) {
    String s = text.strip();
    if (!s.startsWith("{") || !s.endsWith("}")) {
      throw new IllegalArgumentException("labels are not in {a=\"b\"} form: " + text);
    }
    Map<String, String> out = new TreeMap<>();
    Matcher m = MATCHER.matcher(s.substring(1, s.length() - 1));
    int at = 0;
    while (m.find() && m.start() == at) {
      if (!"=".equals(m.group(2))) {
        throw new IllegalArgumentException("a stream's labels use =, not " + m.group(2));
      }
      out.put(m.group(1), unescape(m.group(3)));
      at = m.end();
    }
    if (at != s.length() - 2) {
      throw new IllegalArgumentException("cannot parse labels " + text);
    }
    return out;
  }

  private static String unescape(String v) {
    StringBuilder b = new StringBuilder(v.length());
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '\\' && i + 1 < v.length()) {
        char n = v.charAt(++i);
        b.append(n == 'n' ? '\n' : n);
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** Loki's canonical form: labels sorted by name. */
  static String canonical(Map<String, String> labels) {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
      if (b.length() > 1) {
        b.append(", ");
      }
      b.append(e.getKey()).append("=\"")
          .append(e.getValue().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n"))
          .append('"');
    }
    return b.append('}').toString();
  }

  // ---- queries

  private void query(HttpExchange ex, boolean range) throws IOException {
    String tenant = tenant(ex);
    if (tenant == null) {
      return;
    }
    // Loki takes a query's parameters from the URL or, in a POST, from a form body
    Map<String, String> p = params(ex.getRequestURI(),
        "POST".equals(ex.getRequestMethod()) ? new String(body(ex), StandardCharsets.UTF_8) : null);
    queriesReceived.incrementAndGet();
    lastQueryParams = p;
    lastQueryAuthorization = ex.getRequestHeaders().getFirst("Authorization");
    String text = p.getOrDefault("query", "").strip();
    if (range && text.startsWith("{")) {
      logQuery(ex, tenant, text, p);
      return;
    }
    if (!range && text.startsWith("label_replace(")) {
      legs(ex, tenant, text, timestamp(p.get("time"), clockNanos.getAsLong()));
      return;
    }
    Matcher q = COUNT_QUERY.matcher(text);
    String[] parts;
    try {
      parts = q.matches() ? splitSelector(q.group(2)) : null;
    } catch (IllegalArgumentException e) {
      parts = null;
    }
    Matcher r = parts == null ? null : RANGE.matcher(parts[1]);
    if (r == null || !r.matches()) {
      respondText(ex, 400, "parse error: the emulator answers only sum(count_over_time({selector} [| label"
          + " filters] [range] [offset d])) and {selector} [| label filters]");
      return;
    }
    List<LabelMatcher> selector;
    long window;
    long offset;
    try {
      selector = parseSelection(parts[0] + r.group(1));
      window = duration(r.group(2));
      offset = r.group(3) == null ? 0 : duration(r.group(3));
    } catch (IllegalArgumentException e) {
      respondText(ex, 400, "parse error: " + e.getMessage());
      return;
    }
    long now = clockNanos.getAsLong();
    try {
      if (!range) {
        long t = timestamp(p.get("time"), now);
        long n = count(tenant, selector, t - offset - window, t - offset);
        String result = n == 0 ? "[]" : "[{\"metric\":{},\"value\":[" + seconds(t) + ",\"" + n + "\"]}]";
        respondJson(ex, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":" + result
            + ",\"stats\":{}}}");
        return;
      }
      long end = timestamp(p.get("end"), now);
      long start = timestamp(p.get("start"), end - Duration.ofHours(1).toNanos());
      if (end < start) {
        respondText(ex, 400, "end timestamp must not be before or equal to start time");
        return;
      }
      long step = p.containsKey("step") ? step(p.get("step"))
          : Math.max(1, (end - start) / 1_000_000_000L / 250) * 1_000_000_000L;
      if (step <= 0) {
        respondText(ex, 400, "zero or negative query resolution step widths are not accepted. Try a"
            + " positive integer");
        return;
      }
      if ((end - start) / step > 11_000) {
        respondText(ex, 400, STEP_TOO_SMALL);
        return;
      }
      if (end - start > maxQueryLength.toNanos()) {
        respondText(ex, 400, "the query time range exceeds the limit (query length: "
            + Duration.ofNanos(end - start) + ", limit: " + maxQueryLength + ")");
        return;
      }
      // The query frontend aligns start and end down to multiples of the step.
      long alignedStart = Math.floorDiv(start, step) * step;
      long alignedEnd = Math.floorDiv(end, step) * step;
      List<String> by = q.group(1) == null ? List.of() : List.of(q.group(1).strip().split("\\s*,\\s*"));
      TreeMap<String, TreeMap<Long, Long>> series =
          rangeCounts(tenant, selector, by, alignedStart, alignedEnd, step, window, offset);
      if (series.size() > maxQuerySeries) {
        respondText(ex, 400, "maximum of series (" + maxQuerySeries + ") reached for a single query");
        return;
      }
      StringBuilder result = new StringBuilder("[");
      for (Map.Entry<String, TreeMap<Long, Long>> s : series.entrySet()) {
        StringBuilder values = new StringBuilder();
        for (Map.Entry<Long, Long> point : s.getValue().entrySet()) {
          values.append(values.length() == 0 ? "" : ",").append('[').append(seconds(point.getKey())).append(",\"")
              .append(point.getValue()).append("\"]");
        }
        result.append(result.length() > 1 ? "," : "").append("{\"metric\":").append(s.getKey())
            .append(",\"values\":[").append(values).append("]}");
      }
      respondJson(ex, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":"
          + result.append(']') + ",\"stats\":{}}}");
    } catch (IllegalArgumentException e) {
      respondText(ex, 400, e.getMessage());
    }
  }

  /**
   * An instant query of legs {@code label_replace(sum(count_over_time(<selection> [R] [offset
   * D])), "<label>", "<value>", "", "") or ...}: each leg counted as a plain instant count and
   * labelled; legs without lines left out, as Loki leaves out empty vectors.
   */
  private void legs(HttpExchange ex, String tenant, String text, long t) throws IOException {
    Matcher leg = LEG.matcher(text);
    StringBuilder result = new StringBuilder("[");
    int at = 0;
    try {
      while (at < text.length()) {
        if (!leg.find(at) || leg.start() != at) {
          throw new IllegalArgumentException("the emulator answers label_replace(<count query>, \"<label>\","
              + " \"<value>\", \"\", \"\") legs joined by or, not \"" + text.substring(at) + "\"");
        }
        long n = instantCount(tenant, leg.group(1), t);
        if (n > 0) {
          result.append(result.length() > 1 ? "," : "").append("{\"metric\":{\"").append(leg.group(2))
              .append("\":\"").append(leg.group(3)).append("\"},\"value\":[").append(seconds(t)).append(",\"")
              .append(n).append("\"]}");
        }
        at = leg.end();
      }
    } catch (IllegalArgumentException e) {
      respondText(ex, 400, "parse error: " + e.getMessage());
      return;
    }
    respondJson(ex, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
        + result.append(']') + ",\"stats\":{}}}");
  }

  /** The lines an instant {@code sum(count_over_time(<selection> [R] [offset D]))} at {@code t} counts. */
  private long instantCount(String tenant, String query, long t) {
    Matcher q = COUNT_QUERY.matcher(query);
    if (!q.matches() || q.group(1) != null) {
      throw new IllegalArgumentException("not a count query without by: " + query);
    }
    String[] parts = splitSelector(q.group(2));
    Matcher r = RANGE.matcher(parts[1]);
    if (!r.matches()) {
      throw new IllegalArgumentException("no range in " + query);
    }
    List<LabelMatcher> selector = parseSelection(parts[0] + r.group(1));
    long window = duration(r.group(2));
    long offset = r.group(3) == null ? 0 : duration(r.group(3));
    return count(tenant, selector, t - offset - window, t - offset);
  }

  /**
   * The points of a range query in one pass over the stored lines: per series (the JSON of its
   * {@code by} labels, those a line has), per point {@code t} on the grid {@code [first, last]}
   * of {@code step}, the lines with a timestamp in {@code (t - offset - window, t - offset]};
   * points with no line are left out, as Loki leaves them out.
   */
  private synchronized TreeMap<String, TreeMap<Long, Long>> rangeCounts(String tenant, List<LabelMatcher> selector,
      List<String> by, long first, long last, long step, long window, long offset) throws IOException {
    TreeMap<String, TreeMap<Long, Long>> out = new TreeMap<>();
    for (Entry e : stored) {
      long ns = e.nanos();
      if (!e.tenant().equals(tenant) || ns <= first - offset - window || ns > last - offset) {
        continue;
      }
      if (!matches(selector, e)) {
        continue;
      }
      // the first point at or after ns + offset, then every point whose range still holds ns
      long t = first + Math.max(0, ceilDiv(ns + offset - first, step)) * step;
      String metric = null;
      for (; t <= last && t - offset - window < ns; t += step) {
        if (metric == null) {
          Map<String, String> labels = e.allLabels();
          TreeMap<String, String> m = new TreeMap<>();
          for (String b : by) {
            String v = labels.get(b);
            if (v != null && !v.isEmpty()) {
              m.put(b, v);
            }
          }
          metric = JSON.writeValueAsString(m);
        }
        out.computeIfAbsent(metric, k -> new TreeMap<>()).merge(t, 1L, Long::sum);
      }
    }
    return out;
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  /** Lines of {@code tenant} matching {@code selector} with a timestamp in (from, to]. */
  private synchronized long count(String tenant, List<LabelMatcher> selector, long from, long to) {
    long n = 0;
    for (Entry e : stored) {
      if (e.tenant().equals(tenant) && e.nanos() > from && e.nanos() <= to && matches(selector, e)) {
        n++;
      }
    }
    return n;
  }

  /** Whether {@code e} passes every matcher: stream matchers and label filters alike. */
  private static boolean matches(List<LabelMatcher> selection, Entry e) {
    for (LabelMatcher m : selection) {
      Map<String, String> labels = m.filter() ? e.allLabels() : e.labelMap();
      if (!m.matches(labels.getOrDefault(m.name(), ""))) {
        return false;
      }
    }
    return true;
  }

  /**
   * One label matcher of a stream selector, or of a label filter stage ({@code filter}: it also
   * sees the entry's structured metadata); regexes are anchored at both ends, as in Loki.
   */
  record LabelMatcher(String name, String op, String value, boolean filter) {
    LabelMatcher(String name, String op, String value) {
      this(name, op, value, false);
    }

    boolean matches(String actual) {
      return switch (op) {
        case "=", "==" -> actual.equals(value);
        case "!=" -> !actual.equals(value);
        case "=~" -> Pattern.compile(value).matcher(actual).matches();
        default -> !Pattern.compile(value).matcher(actual).matches();
      };
    }
  }

  /**
   * The selector's braces and what follows them, split at the closing brace outside quotes: {@code
   * {"{a=\"b\"}", " | c=\"d\" [1m]"}}.
   */
  static String[] splitSelector(String text) {
    boolean quoted = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\' && quoted) {
        i++;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == '}' && !quoted) {
        return new String[] {text.substring(0, i + 1), text.substring(i + 1)};
      }
    }
    throw new IllegalArgumentException("cannot parse the stream selector " + text);
  }

  /**
   * A log selection, {@code {selector}} followed by label filter stages {@code | name op "value"}:
   * the selector's matchers, then the filters.
   */
  static List<LabelMatcher> parseSelection(String text) {
    String[] parts = splitSelector(text.strip());
    List<LabelMatcher> out = parseSelector(parts[0].substring(1, parts[0].length() - 1));
    Matcher f = LABEL_FILTER.matcher(parts[1]);
    int at = 0;
    while (at < parts[1].length() && f.find(at) && f.start() == at) {
      out.add(new LabelMatcher(f.group(1), f.group(2), unescape(f.group(3)), true));
      at = f.end();
    }
    if (!parts[1].substring(at).isBlank()) {
      throw new IllegalArgumentException("the emulator understands only label filter stages | name=\"value\","
          + " not \"" + parts[1].substring(at).strip() + "\"");
    }
    return out;
  }

  static List<LabelMatcher> parseSelector(String inner) {
    List<LabelMatcher> out = new ArrayList<>();
    Matcher m = MATCHER.matcher(inner);
    int at = 0;
    while (at < inner.length() && m.find(at) && m.start() == at) {
      out.add(new LabelMatcher(m.group(1), m.group(2), unescape(m.group(3))));
      at = m.end();
    }
    if (at != inner.length()) {
      throw new IllegalArgumentException("cannot parse the stream selector {" + inner + "}");
    }
    boolean nonEmpty = false;
    for (LabelMatcher l : out) {
      nonEmpty |= (l.op().equals("=") || l.op().equals("=~")) && !l.matches("");
    }
    if (!nonEmpty) {
      throw new IllegalArgumentException("queries require at least one regexp or equality matcher"
          + " that does not have an empty-compatible value. For instance, app=~\".*\" does not meet"
          + " this requirement, but app=~\".+\" will");
    }
    return out;
  }

  /**
   * A log query over [start, end): entries in timestamp order ({@code direction=forward}) or
   * newest first (backward, the default), at most {@code limit} (100 by default, at most
   * max_entries_limit_per_query), grouped by stream as Loki answers them.
   */
  private void logQuery(HttpExchange ex, String tenant, String text, Map<String, String> p)
      throws IOException {
    try {
      List<LabelMatcher> selector = parseSelection(text);
      long now = clockNanos.getAsLong();
      long end = timestamp(p.get("end"), now);
      long start = timestamp(p.get("start"), end - Duration.ofHours(1).toNanos());
      int limit = Integer.parseInt(p.getOrDefault("limit", "100"));
      if (limit > MAX_ENTRIES_LIMIT_PER_QUERY) {
        respondText(ex, 400, "max entries limit per query exceeded, limit > max_entries_limit_per_query ("
            + limit + " > " + MAX_ENTRIES_LIMIT_PER_QUERY + ")");
        return;
      }
      if (end - start > maxQueryLength.toNanos()) {
        respondText(ex, 400, "the query time range exceeds the limit (query length: "
            + Duration.ofNanos(end - start) + ", limit: " + maxQueryLength + ")");
        return;
      }
      boolean forward = "forward".equalsIgnoreCase(p.getOrDefault("direction", "backward"));
      List<Entry> hits = new ArrayList<>();
      synchronized (this) {
        for (Entry e : stored) {
          if (e.tenant().equals(tenant) && e.nanos() >= start && e.nanos() < end && matches(selector, e)) {
            hits.add(e);
          }
        }
      }
      hits.sort(forward ? java.util.Comparator.comparingLong(Entry::nanos)
          : java.util.Comparator.comparingLong(Entry::nanos).reversed());
      // Loki groups the result by stream labels plus structured metadata
      Map<Map<String, String>, List<Entry>> byStream = new LinkedHashMap<>();
      for (Entry e : hits.subList(0, Math.min(limit, hits.size()))) {
        byStream.computeIfAbsent(new TreeMap<>(e.allLabels()), k -> new ArrayList<>()).add(e);
      }
      StringBuilder result = new StringBuilder("[");
      for (List<Entry> entries : byStream.values()) {
        result.append(result.length() > 1 ? "," : "").append("{\"stream\":")
            .append(JSON.writeValueAsString(new java.util.TreeMap<>(entries.get(0).allLabels())))
            .append(",\"values\":[");
        for (int i = 0; i < entries.size(); i++) {
          result.append(i > 0 ? "," : "").append("[\"").append(entries.get(i).nanos()).append("\",")
              .append(JSON.writeValueAsString(entries.get(i).line())).append(']');
        }
        result.append("]}");
      }
      respondJson(ex, "{\"status\":\"success\",\"data\":{\"resultType\":\"streams\",\"result\":"
          + result.append(']') + ",\"stats\":{}}}");
    } catch (IllegalArgumentException e) {
      respondText(ex, 400, "parse error: " + e.getMessage());
    }
  }

  private void respondJson(HttpExchange ex, String json) throws IOException {
    respond(ex, 200, "application/json; charset=UTF-8", json.getBytes(StandardCharsets.UTF_8));
  }

  /** Loki's parseTimestamp: a float is seconds, an integer of up to 10 digits seconds, else ns. */
  static long timestamp(String value, long fallback) {
    if (value == null || value.isEmpty()) {
      return fallback;
    }
    if (value.contains(".")) {
      try {
        return new BigDecimal(value).movePointRight(9).longValueExact();
      } catch (NumberFormatException | ArithmeticException e) {
        // not a number: try RFC 3339 below
      }
    }
    try {
      long n = Long.parseLong(value);
      return value.length() <= 10 ? n * 1_000_000_000L : n;
    } catch (NumberFormatException e) {
      try {
        OffsetDateTime t = OffsetDateTime.parse(value);
        return t.toEpochSecond() * 1_000_000_000L + t.getNano();
      } catch (DateTimeParseException d) {
        throw new IllegalArgumentException("cannot parse \"" + value + "\" to a valid timestamp");
      }
    }
  }

  /** A step: float seconds or a duration. */
  static long step(String value) {
    try {
      return new BigDecimal(value).movePointRight(9).longValue();
    } catch (NumberFormatException e) {
      return duration(value);
    }
  }

  static long duration(String text) {
    Matcher m = DURATION.matcher(text);
    long total = 0;
    int at = 0;
    while (at < text.length()) {
      if (!m.find(at) || m.start() != at) {
        throw new IllegalArgumentException("not a valid duration string: \"" + text + "\"");
      }
      long n = Long.parseLong(m.group(1));
      total += switch (m.group(2)) {
        case "ms" -> n * 1_000_000L;
        case "s" -> n * 1_000_000_000L;
        case "m" -> n * 60_000_000_000L;
        case "h" -> n * 3_600_000_000_000L;
        case "d" -> n * 86_400_000_000_000L;
        case "w" -> n * 7 * 86_400_000_000_000L;
        default -> n * 365 * 86_400_000_000_000L;
      };
      at = m.end();
    }
    return total;
  }

  private static String seconds(long nanos) {
    return BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString();
  }

  private static String rfc3339(long nanos) {
    return DateTimeFormatter.ISO_INSTANT.format(
        Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L)));
  }

  /** Go's time.Time.String() in UTC: {@code 2021-05-01 03:00:00.000123457 +0000 UTC}. */
  static String goTime(long nanos) {
    Instant i = Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    String base = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC).format(i);
    String fraction = "";
    if (i.getNano() != 0) {
      fraction = String.format(".%09d", i.getNano()).replaceAll("0+$", "");
    }
    return base + fraction + " +0000 UTC";
  }
}
