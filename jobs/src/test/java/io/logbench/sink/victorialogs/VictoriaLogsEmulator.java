package io.logbench.sink.victorialogs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.logbench.sink.emulator.HttpEmulator;
import io.logbench.sink.emulator.HttpFaults;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A VictoriaLogs emulator for tests: {@code /insert/jsonline} with VictoriaLogs' behaviours from
 * BACKENDS.md (a form-encoded body answered 200 and not stored, rows outside the retention or
 * more than 2 days ahead answered 200 and dropped, AccountID/ProjectID tenants, no dedup), and
 * counts through {@code /select/logsql/hits} (buckets [t, t + step) aligned to the epoch,
 * shifted by {@code offset} in either {@link OffsetConvention}, 1.26.0's by default; empty buckets
 * omitted, or answered as 0 with {@link #zeroFill}) and {@code /select/logsql/query} with {@code | stats
 * [by (_time:<step>, field, ...)] count() n} (one JSON line per non-empty group, {@code
 * {"_time":"<bucket start>","field":"<value>","n":"<count>"}}, the bucket epoch-aligned) or
 * {@code | fields a, b} (JSON lines; with {@code limit=N} the N newest rows) or {@code | stats
 * count() if (_time:[a, b]) s0, ...} (one row of every condition's count, zeros included, as the
 * visibility probe asks; the filter may hold a parenthesized {@code or} of time ranges). Filters understood:
 * {@code *}, a stream filter {@code {a="b"}}, {@code field:=value}, {@code field:*} (not empty) and
 * {@code _time:[start, end)}. Every field of a row besides {@code _msg} and {@code _time} is kept
 * (as VictoriaLogs keeps every field it is sent), stream fields and plain ones (such as the run's
 * {@code logbench_run}) alike, and {@code field:=value} is an exact match on the whole value.
 * {@link #queryFaults()} injects faults into selects apart from inserts. {@link #visibilityDelay}
 * keeps inserted rows out of every select for a while (as a real server's rows become searchable
 * only after its in-memory parts are flushed, about a second), and {@code /metrics} answers
 * {@code vl_data_size_bytes} with the emulator's own figure: the bytes of the rows it holds
 * (message, time and fields as sent, uncompressed) as {@code type="storage"} and of its distinct
 * streams as {@code type="indexdb"}; not a server's.
 */
public final class VictoriaLogsEmulator extends HttpEmulator {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern STREAM_FILTER = Pattern.compile("\\{([^}]*)\\}");
  private static final Pattern PAIR = Pattern.compile("\\s*([^=,\\s]+)\\s*=\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\s*,?");
  private static final Pattern EXACT = Pattern.compile("([\\w.]+):=(\"(?:[^\"\\\\]|\\\\.)*\"|[^\\s|]+)");
  private static final Pattern TIME_RANGE = Pattern.compile("_time:([\\[(])([^,]+),\\s*([^)\\]]+)([)\\]])");
  private static final Pattern STATS =
      Pattern.compile("(.*)\\|\\s*stats\\s+(?:by\\s*\\(([^)]*)\\)\\s*)?count\\(\\)\\s*(?:as\\s+)?(\\w+)\\s*");
  /** {@code <filter> | stats count() if (<time range>) name, ...}: conditional counts, one row. */
  private static final Pattern STATS_IF = Pattern.compile("(.*)\\|\\s*stats\\s+(count\\(\\)\\s+if\\s*\\(.*)");
  private static final Pattern COUNT_IF =
      Pattern.compile("\\s*count\\(\\)\\s+if\\s*\\(\\s*(_time:[\\[(][^\\])]*[\\])])\\s*\\)\\s*(?:as\\s+)?(\\w+)\\s*(,|$)");
  /** A parenthesized {@code or} of time ranges, {@code (_time:[a, b] or _time:[c, d])}. */
  private static final Pattern ANY_TIME =
      Pattern.compile("\\(\\s*(_time:[\\[(][^\\])]*[\\])](?:\\s+or\\s+_time:[\\[(][^\\])]*[\\])])*)\\s*\\)");
  private static final Pattern ANY_VALUE = Pattern.compile("([\\w.]+):\\*");
  private static final Pattern FIELDS = Pattern.compile("(.*)\\|\\s*fields\\s+([\\w.]+(?:\\s*,\\s*[\\w.]+)*)\\s*");
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d|w|y)");

  /**
   * Which way {@code offset} shifts hits buckets: VictoriaLogs 1.26.0 was seen to start them at
   * {@code k * step + offset} ({@code step=1d&offset=3h} gives a bucket at 03:00Z, {@code
   * offset=-3h} one at 21:00Z), while its later documentation describes {@code k * step - offset}
   * ({@code offset=-4h} for days in New York, which start at 04:00Z).
   */
  public enum OffsetConvention {
    /** Buckets start at {@code k * step + offset}, as VictoriaLogs 1.26.0 does (the default). */
    PLUS,
    /** Buckets start at {@code k * step - offset}, as later VictoriaLogs documentation describes. */
    MINUS
  }

  /** One stored row. */
  public record Row(String tenant, long nanos, String msg, Map<String, String> fields, String stream) {}

  private final List<Row> rows = new ArrayList<>();
  /** Rows inserted but not yet visible, with the System.nanoTime at which they become visible. */
  private final java.util.ArrayDeque<Map.Entry<Long, List<Row>>> invisible = new java.util.ArrayDeque<>();
  private volatile Duration visibilityDelay = Duration.ZERO;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  /** Dropped as VictoriaLogs counts them: older than the retention, or more than 2 days ahead. */
  private final AtomicLong droppedOld = new AtomicLong();
  private final AtomicLong droppedNew = new AtomicLong();
  private final AtomicLong formIgnored = new AtomicLong();
  private final AtomicLong lost = new AtomicLong();
  private volatile Duration retention = Duration.ofDays(7);
  private volatile String lastContentType;
  private volatile String lastQuery;
  private final HttpFaults queryFaults = new HttpFaults();
  private final AtomicLong selects = new AtomicLong();
  private volatile boolean zeroFill;
  private volatile OffsetConvention offsetConvention = OffsetConvention.PLUS;
  private final List<Map<String, String>> hitsParams = new ArrayList<>();
  private volatile Map<String, String> lastSelectParams;
  private volatile LongSupplier clockNanos =
      () -> {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
      };

  /**
   * How long inserted rows stay out of every select (and of {@link #rows}) after the insert is
   * answered; zero (the default) makes them visible at once.
   */
  public VictoriaLogsEmulator visibilityDelay(Duration delay) {
    this.visibilityDelay = delay;
    return this;
  }

  /** Moves the rows whose delay is over into the visible rows. */
  private synchronized void promote() {
    long now = System.nanoTime();
    while (!invisible.isEmpty() && invisible.peekFirst().getKey() - now <= 0) {
      rows.addAll(invisible.pollFirst().getValue());
    }
  }

  /** {@code -retentionPeriod} (7d by default, as VictoriaLogs'). */
  public VictoriaLogsEmulator retention(Duration retention) {
    this.retention = retention;
    return this;
  }

  public VictoriaLogsEmulator clock(LongSupplier epochNanos) {
    this.clockNanos = epochNanos;
    return this;
  }

  /** Faults injected into the next selects ({@link #faults()} acts on inserts only). */
  public HttpFaults queryFaults() {
    return queryFaults;
  }

  /**
   * Answers hits with a 0 for every empty bucket between start and end instead of omitting it
   * (both shapes are seen from VictoriaLogs, depending on version and query).
   */
  public VictoriaLogsEmulator zeroFill(boolean on) {
    this.zeroFill = on;
    return this;
  }

  /** How hits applies {@code offset} ({@link OffsetConvention#PLUS}, 1.26.0's, by default). */
  public VictoriaLogsEmulator offsetConvention(OffsetConvention convention) {
    this.offsetConvention = convention;
    return this;
  }

  /** The decoded parameters of every hits request so far, in order. */
  public synchronized List<Map<String, String>> hitsRequests() {
    return List.copyOf(hitsParams);
  }

  /** Removes the stored rows that match {@code which} (a loss after the fact); returns how many. */
  public synchronized int deleteWhere(java.util.function.Predicate<Row> which) {
    int before = rows.size();
    rows.removeIf(which);
    return before - rows.size();
  }

  /** Requests received on /select/logsql/hits and /select/logsql/query. */
  public long selectsReceived() {
    return selects.get();
  }

  /** The decoded parameters of the last select. */
  public Map<String, String> lastSelectParams() {
    return lastSelectParams;
  }

  public long requestsReceived() {
    return requests.get();
  }

  public synchronized int rowsStored() {
    promote();
    return rows.size();
  }

  /** Rows answered 200 but dropped for being outside the retention (vl_rows_dropped_total). */
  public long rowsDropped() {
    return dropped.get();
  }

  public long formRequestsIgnored() {
    return formIgnored.get();
  }

  public long rowsLost() {
    return lost.get();
  }

  public String lastContentType() {
    return lastContentType;
  }

  /** The raw query string of the last insert. */
  public String lastQuery() {
    return lastQuery;
  }

  public synchronized List<Row> rows() {
    promote();
    return List.copyOf(rows);
  }

  /**
   * Stores one more copy of each stored row {@code which} selects, as if the same line had been
   * pushed again by someone; returns how many rows were copied.
   */
  public synchronized int copyRows(java.util.function.Predicate<Row> which) {
    List<Row> copies = rows.stream().filter(which).toList();
    rows.addAll(copies);
    return copies.size();
  }

  @Override
  protected void handle(HttpExchange ex) throws IOException {
    switch (ex.getRequestURI().getPath()) {
      case "/insert/jsonline" -> {
        requests.incrementAndGet();
        HttpFaults.Fault fault = applyFault(ex);
        if (fault != null) {
          insert(ex, fault.kind() == HttpFaults.Kind.LOSE ? fault.lines() : 0);
        }
      }
      case "/select/logsql/hits" -> {
        promote();
        if (applyFault(ex, queryFaults) != null) {
          hits(ex);
        }
      }
      case "/select/logsql/query" -> {
        promote();
        if (applyFault(ex, queryFaults) != null) {
          query(ex);
        }
      }
      case "/internal/force_flush" -> {
        // as VictoriaLogs: what is held in memory becomes searchable at once
        synchronized (this) {
          invisible.forEach(e -> rows.addAll(e.getValue()));
          invisible.clear();
        }
        respond(ex, 200, null, new byte[0]);
      }
      case "/health" -> respondText(ex, 200, "OK");
      case "/metrics" -> respond(ex, 200, "text/plain; version=0.0.4", metrics().getBytes(StandardCharsets.UTF_8));
      default -> respondText(ex, 400, "unsupported path requested: " + ex.getRequestURI().getPath());
    }
  }

  /** The emulator's {@code vl_data_size_bytes}: bytes of the rows and streams it holds, visible or not. */
  private synchronized String metrics() {
    long storage = 0;
    java.util.Set<String> streams = new java.util.HashSet<>();
    List<Row> all = new ArrayList<>(rows);
    invisible.forEach(e -> all.addAll(e.getValue()));
    for (Row r : all) {
      storage += r.msg().getBytes(StandardCharsets.UTF_8).length + 8; // 8: the time
      for (Map.Entry<String, String> f : r.fields().entrySet()) {
        storage += f.getKey().length() + f.getValue().getBytes(StandardCharsets.UTF_8).length;
      }
      streams.add(r.tenant() + r.stream());
    }
    long indexdb = streams.stream().mapToLong(String::length).sum();
    return "# HELP vl_data_size_bytes (emulator) bytes of the rows and streams held\n"
        + "# TYPE vl_data_size_bytes gauge\n"
        + "vl_data_size_bytes{type=\"storage\"} " + storage + "\n"
        + "vl_data_size_bytes{type=\"indexdb\"} " + indexdb + "\n"
        + "vl_rows_dropped_total{reason=\"too_small_timestamp\"} " + droppedOld.get() + "\n"
        + "vl_rows_dropped_total{reason=\"too_big_timestamp\"} " + droppedNew.get() + "\n";
  }

  private static String tenant(HttpExchange ex) {
    String a = ex.getRequestHeaders().getFirst("AccountID");
    String p = ex.getRequestHeaders().getFirst("ProjectID");
    return (a == null ? "0" : a) + ":" + (p == null ? "0" : p);
  }

  private void insert(HttpExchange ex, int lose) throws IOException {
    String contentType = ex.getRequestHeaders().getFirst("Content-Type");
    lastContentType = contentType;
    lastQuery = ex.getRequestURI().getRawQuery();
    byte[] body = body(ex);
    if (contentType != null && contentType.startsWith("application/x-www-form-urlencoded")) {
      formIgnored.incrementAndGet();
      respond(ex, 200, null, new byte[0]);
      return;
    }
    Map<String, String> p = params(ex.getRequestURI(), null);
    String streamFields = param(ex, p, "_stream_fields", "VL-Stream-Fields", "");
    String msgField = param(ex, p, "_msg_field", "VL-Msg-Field", "_msg");
    String timeField = param(ex, p, "_time_field", "VL-Time-Field", "_time");
    List<String> stream = streamFields.isEmpty() ? List.of() : List.of(streamFields.split(","));
    String tenant = tenant(ex);
    long now = clockNanos.getAsLong();
    List<Row> parsed = new ArrayList<>();
    String[] lines = new String(body, StandardCharsets.UTF_8).split("\n");
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].isBlank()) {
        continue;
      }
      JsonNode o;
      try {
        o = JSON.readTree(lines[i]);
      } catch (IOException e) {
        respondText(ex, 400, "cannot read line #" + (i + 1) + " in /jsonline request: cannot parse JSON");
        return;
      }
      Map<String, String> fields = new TreeMap<>();
      Iterator<Map.Entry<String, JsonNode>> it = o.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> f = it.next();
        fields.put(f.getKey(), f.getValue().isTextual() ? f.getValue().asText() : f.getValue().toString());
      }
      String t = fields.remove(timeField);
      long ns = t == null || t.equals("0") ? now : time(t);
      String msg = fields.remove(msgField);
      StringBuilder s = new StringBuilder("{");
      for (String f : stream) {
        if (fields.containsKey(f)) {
          s.append(s.length() > 1 ? "," : "").append(f).append("=\"").append(fields.get(f)).append('"');
        }
      }
      parsed.add(new Row(tenant, ns, msg == null ? "" : msg, fields, s.append('}').toString()));
    }
    List<Row> kept = new ArrayList<>();
    for (Row r : parsed) {
      if (r.nanos() < now - retention.toNanos()) {
        dropped.incrementAndGet();
        droppedOld.incrementAndGet();
      } else if (r.nanos() > now + Duration.ofDays(2).toNanos()) {
        dropped.incrementAndGet();
        droppedNew.incrementAndGet();
      } else {
        kept.add(r);
      }
    }
    int keep = Math.max(0, kept.size() - lose);
    lost.addAndGet(kept.size() - keep);
    synchronized (this) {
      List<Row> in = List.copyOf(kept.subList(0, keep));
      if (visibilityDelay.isZero()) {
        rows.addAll(in);
      } else {
        invisible.addLast(Map.entry(System.nanoTime() + visibilityDelay.toNanos(), in));
      }
    }
    respond(ex, 200, null, new byte[0]);
  }

  private static String param(HttpExchange ex, Map<String, String> p, String name, String header, String dflt) {
    String v = p.get(name);
    if (v == null) {
      v = ex.getRequestHeaders().getFirst(header);
    }
    return v == null ? dflt : v;
  }

  // ---- queries

  /** A parsed filter: stream labels, exact fields, non-empty fields and a time range [from, to]. */
  private record Filter(Map<String, String> stream, Map<String, String> exact, List<String> present,
      long from, long to) {
    boolean matches(Row r) {
      if (r.nanos() < from || r.nanos() > to) {
        return false;
      }
      for (String f : present) {
        String v = f.equals("_msg") ? r.msg() : r.fields().get(f);
        if (v == null || v.isEmpty()) {
          return false;
        }
      }
      for (Map.Entry<String, String> e : stream.entrySet()) {
        if (!e.getValue().equals(r.fields().get(e.getKey()))) {
          return false;
        }
      }
      for (Map.Entry<String, String> e : exact.entrySet()) {
        String v = e.getKey().equals("_msg") ? r.msg() : r.fields().get(e.getKey());
        if (!e.getValue().equals(v)) {
          return false;
        }
      }
      return true;
    }
  }

  private static Filter filter(String text, long from, long to) {
    Map<String, String> stream = new LinkedHashMap<>();
    Map<String, String> exact = new LinkedHashMap<>();
    String rest = text;
    Matcher tr = TIME_RANGE.matcher(rest);
    if (tr.find()) {
      long a = time(tr.group(2).strip());
      long b = time(tr.group(3).strip());
      from = Math.max(from, tr.group(1).equals("[") ? a : a + 1);
      to = Math.min(to, tr.group(4).equals("]") ? b : b - 1);
      rest = rest.substring(0, tr.start()) + rest.substring(tr.end());
    }
    Matcher sf = STREAM_FILTER.matcher(rest);
    if (sf.find()) {
      Matcher pair = PAIR.matcher(sf.group(1));
      while (pair.find()) {
        stream.put(pair.group(1), pair.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
      }
      rest = rest.substring(0, sf.start()) + rest.substring(sf.end());
    }
    Matcher ex = EXACT.matcher(rest);
    while (ex.find()) {
      String v = ex.group(2);
      if (v.startsWith("\"")) {
        v = v.substring(1, v.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
      }
      exact.put(ex.group(1), v);
    }
    rest = ex.replaceAll("");
    List<String> present = new ArrayList<>();
    Matcher any = ANY_VALUE.matcher(rest);
    while (any.find()) {
      present.add(any.group(1));
    }
    rest = any.replaceAll("").replace("*", "").strip();
    if (!rest.isEmpty()) {
      throw new IllegalArgumentException("the emulator does not understand the filter \"" + rest + "\"");
    }
    return new Filter(stream, exact, present, from, to);
  }

  /** Counts per bucket [t, t + step), t = k * step + shift. */
  private synchronized TreeMap<Long, Long> buckets(String tenant, Filter f, long step, long shift) {
    TreeMap<Long, Long> out = new TreeMap<>();
    for (Row r : rows) {
      if (r.tenant().equals(tenant) && f.matches(r)) {
        long b = Math.floorDiv(r.nanos() - shift, step) * step + shift;
        out.merge(b, 1L, Long::sum);
      }
    }
    return out;
  }

  /**
   * Rows per group of a {@code stats by}: the bucket start (epoch-aligned, when {@code step} is
   * positive) then the values of {@code by} ("" for a row without the field), in order.
   */
  private synchronized TreeMap<List<String>, Long> groups(String tenant, Filter f, long step, List<String> by) {
    TreeMap<List<String>, Long> out = new TreeMap<>(java.util.Comparator.comparing(List::toString));
    for (Row r : rows) {
      if (r.tenant().equals(tenant) && f.matches(r)) {
        List<String> key = new ArrayList<>();
        if (step > 0) {
          key.add(String.valueOf(Math.floorDiv(r.nanos(), step) * step));
        }
        for (String b : by) {
          key.add(b.equals("_msg") ? r.msg() : r.fields().getOrDefault(b, ""));
        }
        out.merge(key, 1L, Long::sum);
      }
    }
    return out;
  }

  private static Map<String, String> requestParams(HttpExchange ex) throws IOException {
    String form = new String(body(ex), StandardCharsets.UTF_8);
    return params(ex.getRequestURI(), form);
  }

  private void hits(HttpExchange ex) throws IOException {
    Map<String, String> p = requestParams(ex);
    selects.incrementAndGet();
    lastSelectParams = p;
    synchronized (this) {
      hitsParams.add(p);
    }
    try {
      long from = p.containsKey("start") ? time(p.get("start")) : Long.MIN_VALUE;
      long to = p.containsKey("end") ? time(p.get("end")) : Long.MAX_VALUE;
      long step = duration(p.getOrDefault("step", "1d"));
      long offset = p.containsKey("offset") ? signedDuration(p.get("offset")) : 0;
      long shift = offsetConvention == OffsetConvention.PLUS ? offset : -offset;
      Filter f = filter(p.getOrDefault("query", "*"), from, to);
      TreeMap<Long, Long> b = buckets(tenant(ex), f, step, shift);
      if (zeroFill && from != Long.MIN_VALUE && to != Long.MAX_VALUE) {
        for (long t = Math.floorDiv(from - shift, step) * step + shift; t <= to; t += step) {
          b.putIfAbsent(t, 0L);
        }
      }
      StringBuilder ts = new StringBuilder();
      StringBuilder vs = new StringBuilder();
      long total = 0;
      for (Map.Entry<Long, Long> e : b.entrySet()) {
        ts.append(ts.length() == 0 ? "" : ",").append('"').append(rfc3339(e.getKey())).append('"');
        vs.append(vs.length() == 0 ? "" : ",").append(e.getValue());
        total += e.getValue();
      }
      String hits = b.isEmpty() ? "[]"
          : "[{\"fields\":{},\"timestamps\":[" + ts + "],\"values\":[" + vs + "],\"total\":" + total + "}]";
      respond(ex, 200, "application/json", ("{\"hits\":" + hits + "}").getBytes(StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      respondText(ex, 400, e.getMessage());
    }
  }

  private void query(HttpExchange ex) throws IOException {
    Map<String, String> p = requestParams(ex);
    selects.incrementAndGet();
    lastSelectParams = p;
    Matcher fields = FIELDS.matcher(p.getOrDefault("query", ""));
    if (fields.matches()) {
      rowsQuery(ex, p, fields.group(1), List.of(fields.group(2).split("\\s*,\\s*")));
      return;
    }
    Matcher conditional = STATS_IF.matcher(p.getOrDefault("query", ""));
    if (conditional.matches()) {
      conditionalCounts(ex, p, conditional.group(1), conditional.group(2));
      return;
    }
    Matcher m = STATS.matcher(p.getOrDefault("query", ""));
    if (!m.matches()) {
      respondText(ex, 400, "the emulator answers only <filter> | stats [by (_time:<step>, <field>, ...)] count() <name>");
      return;
    }
    try {
      long from = p.containsKey("start") ? time(p.get("start")) : Long.MIN_VALUE;
      long to = p.containsKey("end") ? time(p.get("end")) : Long.MAX_VALUE;
      Filter f = filter(m.group(1), from, to);
      String name = m.group(3);
      long step = 0;
      List<String> by = new ArrayList<>();
      if (m.group(2) != null) {
        for (String item : m.group(2).split(",")) {
          String i = item.strip();
          if (i.startsWith("_time:")) {
            step = duration(i.substring("_time:".length()));
          } else if (i.matches("[\\w.]+")) {
            by.add(i);
          } else {
            throw new IllegalArgumentException("the emulator groups stats by _time:<step> and fields, not \"" + i + "\"");
          }
        }
      }
      StringBuilder out = new StringBuilder();
      TreeMap<List<String>, Long> groups = groups(tenant(ex), f, step, by);
      if (groups.isEmpty() && step == 0 && by.isEmpty()) {
        groups.put(List.of(), 0L); // stats without by answers one row, even of 0
      }
      for (Map.Entry<List<String>, Long> e : groups.entrySet()) {
        Map<String, String> row = new LinkedHashMap<>();
        List<String> key = e.getKey();
        if (step > 0) {
          row.put("_time", rfc3339(Long.parseLong(key.get(0))));
        }
        for (int i = 0; i < by.size(); i++) {
          row.put(by.get(i), key.get(step > 0 ? i + 1 : i));
        }
        row.put(name, String.valueOf(e.getValue()));
        out.append(JSON.writeValueAsString(row)).append('\n');
      }
      respond(ex, 200, "application/stream+json", out.toString().getBytes(StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      respondText(ex, 400, e.getMessage());
    }
  }

  /**
   * {@code <filter> [(_time:[a, b] or ...)] | stats count() if (_time:[a, b]) s0, ...}: one row of
   * the rows matching the filter (and any of the or'ed time ranges) that fall in each condition's
   * range, {@code {"s0":"<count>",...}}, zeros included.
   */
  private void conditionalCounts(HttpExchange ex, Map<String, String> p, String filterText, String stats)
      throws IOException {
    try {
      List<long[]> any = new ArrayList<>();
      Matcher anyTime = ANY_TIME.matcher(filterText);
      if (anyTime.find()) {
        for (String r : anyTime.group(1).split("\\s+or\\s+")) {
          any.add(range(r));
        }
        filterText = filterText.substring(0, anyTime.start()) + filterText.substring(anyTime.end());
      }
      long from = p.containsKey("start") ? time(p.get("start")) : Long.MIN_VALUE;
      long to = p.containsKey("end") ? time(p.get("end")) : Long.MAX_VALUE;
      Filter f = filter(filterText, from, to);
      List<String> names = new ArrayList<>();
      List<long[]> conditions = new ArrayList<>();
      Matcher c = COUNT_IF.matcher(stats);
      int at = 0;
      while (at < stats.length()) {
        if (!c.find(at) || c.start() != at) {
          throw new IllegalArgumentException("the emulator answers only stats count() if (_time:[a, b]) name, ...;"
              + " not \"" + stats.substring(at) + "\"");
        }
        conditions.add(range(c.group(1)));
        names.add(c.group(2));
        at = c.end();
      }
      long[] counts = new long[names.size()];
      String tenant = tenant(ex);
      synchronized (this) {
        for (Row r : rows) {
          if (!r.tenant().equals(tenant) || !f.matches(r)
              || !any.isEmpty() && any.stream().noneMatch(a -> r.nanos() >= a[0] && r.nanos() <= a[1])) {
            continue;
          }
          for (int k = 0; k < counts.length; k++) {
            if (r.nanos() >= conditions.get(k)[0] && r.nanos() <= conditions.get(k)[1]) {
              counts[k]++;
            }
          }
        }
      }
      Map<String, String> row = new LinkedHashMap<>();
      for (int k = 0; k < counts.length; k++) {
        row.put(names.get(k), String.valueOf(counts[k]));
      }
      respond(ex, 200, "application/stream+json", (JSON.writeValueAsString(row) + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      respondText(ex, 400, e.getMessage());
    }
  }

  /** {@code _time:[a, b]} (or with open ends) as the inclusive range {@code [from, to]} in ns. */
  private static long[] range(String text) {
    Matcher tr = TIME_RANGE.matcher(text.strip());
    if (!tr.matches()) {
      throw new IllegalArgumentException("cannot parse the time range \"" + text + "\"");
    }
    long a = time(tr.group(2).strip());
    long b = time(tr.group(3).strip());
    return new long[] {tr.group(1).equals("[") ? a : a + 1, tr.group(4).equals("]") ? b : b - 1};
  }

  /**
   * {@code <filter> | fields a, b}: matching rows as JSON lines with only those fields; with
   * {@code limit=N}, the N most recent rows, newest first (VictoriaLogs sorts only then).
   */
  private void rowsQuery(HttpExchange ex, Map<String, String> p, String filterText, List<String> names)
      throws IOException {
    try {
      long from = p.containsKey("start") ? time(p.get("start")) : Long.MIN_VALUE;
      long to = p.containsKey("end") ? time(p.get("end")) : Long.MAX_VALUE;
      Filter f = filter(filterText, from, to);
      String tenant = tenant(ex);
      List<Row> hits = new ArrayList<>();
      synchronized (this) {
        for (Row r : rows) {
          if (r.tenant().equals(tenant) && f.matches(r)) {
            hits.add(r);
          }
        }
      }
      if (p.containsKey("limit")) {
        hits.sort(java.util.Comparator.comparingLong(Row::nanos).reversed());
        hits = hits.subList(0, Math.min(hits.size(), Integer.parseInt(p.get("limit"))));
      }
      StringBuilder out = new StringBuilder();
      for (Row r : hits) {
        Map<String, String> o = new LinkedHashMap<>();
        for (String n : names) {
          o.put(n, switch (n) {
            case "_msg" -> r.msg();
            case "_time" -> rfc3339(r.nanos());
            case "_stream" -> r.stream();
            default -> r.fields().getOrDefault(n, "");
          });
        }
        out.append(JSON.writeValueAsString(o)).append('\n');
      }
      respond(ex, 200, "application/stream+json", out.toString().getBytes(StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      respondText(ex, 400, e.getMessage());
    }
  }

  /** RFC 3339 (with or without fraction), or a number: seconds, ms, µs or ns by magnitude. */
  static long time(String v) {
    try {
      OffsetDateTime t = OffsetDateTime.parse(v);
      return t.toEpochSecond() * 1_000_000_000L + t.getNano();
    } catch (DateTimeParseException e) {
      try {
        BigDecimal n = new BigDecimal(v);
        BigDecimal abs = n.abs();
        int shift = abs.compareTo(BigDecimal.valueOf(1e10)) < 0 ? 9
            : abs.compareTo(BigDecimal.valueOf(1e13)) < 0 ? 6
            : abs.compareTo(BigDecimal.valueOf(1e16)) < 0 ? 3 : 0;
        return n.movePointRight(shift).longValue();
      } catch (NumberFormatException n) {
        throw new IllegalArgumentException("cannot parse timestamp \"" + v + "\"");
      }
    }
  }

  private static long signedDuration(String v) {
    return v.startsWith("-") ? -duration(v.substring(1)) : duration(v);
  }

  static long duration(String text) {
    Matcher m = DURATION.matcher(text);
    long total = 0;
    int at = 0;
    while (at < text.length()) {
      if (!m.find(at) || m.start() != at) {
        throw new IllegalArgumentException("cannot parse duration \"" + text + "\"");
      }
      long n = Long.parseLong(m.group(1));
      total += n * switch (m.group(2)) {
        case "ms" -> 1_000_000L;
        case "s" -> 1_000_000_000L;
        case "m" -> 60_000_000_000L;
        case "h" -> 3_600_000_000_000L;
        case "d" -> 86_400_000_000_000L;
        case "w" -> 7 * 86_400_000_000_000L;
        default -> 365 * 86_400_000_000_000L;
      };
      at = m.end();
    }
    if (total <= 0) {
      throw new IllegalArgumentException("the step must be positive, got \"" + text + "\"");
    }
    return total;
  }

  static String rfc3339(long nanos) {
    return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L))
        .toString();
  }
}
