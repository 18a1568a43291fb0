package io.logbench.sink.splunk;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A protocol emulator of a Splunk HTTP Event Collector and of the one search a verifier needs,
 * on 127.0.0.1. It is not Splunk: it follows Splunk's documented API for
 *
 * <ul>
 *   <li>{@code POST /services/collector/event}: {@code Authorization: Splunk <token>}; concatenated
 *       JSON events, each {@code time} kept to the microsecond (finer digits rounded); answers {@code {"text":"Success","code":0}} (plus {@code "ackId"} when
 *       acknowledgement is on); 401 code 2 (no token) or 3 (not "Splunk <token>"), 403 code 4
 *       (unknown token), 400 code 5 (no data), 6 (invalid data format, with {@code
 *       invalid-event-number}), 7 (incorrect index), 10 (no channel), 11 (invalid channel), 12/13
 *       (event missing/blank). A request with an error stores none of its events (an emulator
 *       choice).
 *   <li>{@code POST /services/collector/ack}: {@code {"acks":[ids]}} answered {@code
 *       {"acks":{"id":true|false}}}; an id reported true is released; 400 code 14 when
 *       acknowledgement is off.
 *   <li>{@code GET /services/collector/health}: 200 code 17, or 503 code 18 when told unhealthy.
 *   <li>{@code POST|GET /services/search/jobs/export} with {@code search=| tstats count where
 *       index=<idx> [<field>=<value> ...] by _time[, <field> ...] span=<N><s|m|h|d>}, {@code earliest_time},
 *       {@code latest_time}
 *       (epoch seconds or ISO 8601; [earliest, latest)), {@code output_mode=json}, basic auth:
 *       one line per non-empty bucket (and, with by fields, per bucket and their values, which
 *       are indexed fields; an event without one is not counted) {@code {"preview":false,
 *       "offset":i,"result":{"_time":"2021-05-01T03:00:00.000+00:00"[,"status":"200"],
 *       "count":"12"}}}, {@code "lastrow":true} on the last;
 *       buckets are [t, t + span) aligned to the epoch (UTC). No bucket, no line (tstats does not
 *       emit empty buckets): the body is then empty. tstats reads indexed fields (an event's HEC
 *       {@code fields}): {@code <field>=<value>} or {@code <field>::<value>} keeps the events whose
 *       indexed field has that value.
 *   <li>the same endpoint with {@code search=search index=<idx> [<field>::<value> ...]
 *       earliest=<epoch s> latest=<epoch s> | fields seq [| head N]} (epoch seconds with an
 *       optional fraction; [earliest, latest)): one row {@code {"preview":false,"offset":i,
 *       "result":{"_time":...,"seq":"<seq>"}}} per stored event, in time order, at most N. In a
 *       search, {@code <field>::<value>} matches an indexed field; {@code <field>=<value>} is, as
 *       Splunk documents for an indexed field not declared in fields.conf, first a search for the
 *       value among the event's raw words, so it also needs the value in the event's text.
 * </ul>
 *
 * Failures can be injected on event requests: the next N answer a status, wait, hang (until the
 * emulator closes), or answer garbage with 200; the next N accepted events can be silently lost;
 * acks can be made never to become true, or only after a number of polls or a delay; the next N
 * searches can answer a status, wait, or hang.
 */
public final class SplunkHecEmulator implements AutoCloseable {

  /** An event as stored. */
  public record StoredEvent(
      long timeNanos, String host, String source, String sourcetype, String index, String event,
      Map<String, String> fields, String channel) {}

  /** An event request as received (headers by lowercase name, first value). */
  public record Received(Map<String, String> headers, String query, byte[] body) {
    public String header(String name) {
      return headers.get(name.toLowerCase());
    }
  }

  private enum FaultKind { STATUS, DELAY, HANG, GARBAGE }

  private record Fault(FaultKind kind, int status, Duration delay) {}

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
  private static final DateTimeFormatter SPLUNK_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSxxx").withZone(ZoneOffset.UTC);
  /** Field terms after the index: {@code name=value} or {@code name::value}, values maybe quoted. */
  private static final String TERMS = "((?:\\s+[\\w.]+(?:=|::)(?:\"[^\"]*\"|[^\\s\"]+))*)";
  private static final Pattern TERM = Pattern.compile("\\s+([\\w.]+)(=|::)(?:\"([^\"]*)\"|([^\\s\"]+))");
  private static final Pattern TSTATS =
      Pattern.compile(
          "\\s*\\|\\s*tstats\\s+count\\s+where\\s+index\\s*=\\s*\"?([^\\s\"]+?)\"?" + TERMS
              + "\\s+by\\s+_time((?:\\s*,\\s*[\\w.]+)*)\\s+span\\s*=\\s*(\\d+)(s|m|h|d)\\s*",
          Pattern.CASE_INSENSITIVE);

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final CountDownLatch closed = new CountDownLatch(1);

  private final Set<String> tokens = ConcurrentHashMap.newKeySet();
  private volatile Set<String> indexes = null;
  private volatile boolean ackEnabled;
  private volatile boolean acksNeverTrue;
  private volatile int ackAfterPolls = 1;
  private volatile Duration ackDelay = Duration.ZERO;
  private volatile boolean unhealthy;
  private volatile String searchAuthorization =
      "Basic " + Base64.getEncoder().encodeToString("admin:changeme".getBytes(StandardCharsets.UTF_8));

  private static final Pattern SEQ_SEARCH =
      Pattern.compile(
          "\\s*search\\s+index\\s*=\\s*\"?([^\\s\"]+?)\"?" + TERMS + "\\s+earliest\\s*=\\s*(\\d+(?:\\.\\d+)?)\\s+"
              + "latest\\s*=\\s*(\\d+(?:\\.\\d+)?)\\s*\\|\\s*fields\\s+seq(?:\\s*\\|\\s*head\\s+(\\d+))?\\s*",
          Pattern.CASE_INSENSITIVE);

  private final ConcurrentLinkedQueue<Fault> faults = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Fault> searchFaults = new ConcurrentLinkedQueue<>();
  private final AtomicInteger searches = new AtomicInteger();
  private final AtomicInteger eventsToLose = new AtomicInteger();
  private final AtomicInteger lost = new AtomicInteger();

  private final List<StoredEvent> events = new CopyOnWriteArrayList<>();
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final List<String> searchTexts = new CopyOnWriteArrayList<>();
  private final List<List<Long>> ackPolls = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicLong> nextAckId = new ConcurrentHashMap<>();
  /** An ack id not yet reported true: polls seen so far, and when its request was accepted. */
  private record OpenAck(int polls, long acceptedNanos) {}

  /** channel -> ack id -> its state. */
  private final Map<String, Map<Long, OpenAck>> openAcks = new ConcurrentHashMap<>();

  private SplunkHecEmulator(String token) throws IOException {
    tokens.add(token);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext("/services/collector/event", ex -> guarded(ex, this::event));
    server.createContext("/services/collector/ack", ex -> guarded(ex, this::ack));
    server.createContext("/services/collector/health", ex -> guarded(ex, this::health));
    server.createContext("/services/search/jobs/export", ex -> guarded(ex, this::export));
    server.start();
  }

  /** Starts an emulator that accepts {@code token}. */
  public static SplunkHecEmulator start(String token) {
    try {
      return new SplunkHecEmulator(token);
    } catch (IOException e) {
      throw new IllegalStateException("The HEC emulator could not bind 127.0.0.1.", e);
    }
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  // ---- configuration ----

  public SplunkHecEmulator ackEnabled(boolean on) {
    this.ackEnabled = on;
    return this;
  }

  /** Only these indexes are allowed (default: any). */
  public SplunkHecEmulator indexes(String... allowed) {
    this.indexes = Set.of(allowed);
    return this;
  }

  /** Basic-auth credentials of the search endpoint (default admin/changeme). */
  public SplunkHecEmulator searchCredentials(String user, String password) {
    this.searchAuthorization =
        "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    return this;
  }

  public SplunkHecEmulator unhealthy(boolean unhealthy) {
    this.unhealthy = unhealthy;
    return this;
  }

  // ---- failure injection ----

  /** The next {@code n} event requests answer {@code status} with HEC's body for it. */
  public SplunkHecEmulator failNext(int n, int status) {
    return add(n, new Fault(FaultKind.STATUS, status, Duration.ZERO));
  }

  /** The next {@code n} event requests are handled normally after waiting {@code delay}. */
  public SplunkHecEmulator delayNext(int n, Duration delay) {
    return add(n, new Fault(FaultKind.DELAY, 0, delay));
  }

  /** The next {@code n} event requests are never answered (until the emulator closes). */
  public SplunkHecEmulator hangNext(int n) {
    return add(n, new Fault(FaultKind.HANG, 0, Duration.ZERO));
  }

  /** The next {@code n} event requests store nothing and answer 200 with a body that is not JSON. */
  public SplunkHecEmulator garbageNext(int n) {
    return add(n, new Fault(FaultKind.GARBAGE, 200, Duration.ZERO));
  }

  /** The next {@code n} events of accepted requests are answered Success (and acked) but not stored. */
  public SplunkHecEmulator loseNext(int n) {
    eventsToLose.addAndGet(n);
    return this;
  }

  /** The next {@code n} searches answer {@code status} with a Splunk REST error body. */
  public SplunkHecEmulator failNextSearches(int n, int status) {
    for (int i = 0; i < n; i++) {
      searchFaults.add(new Fault(FaultKind.STATUS, status, Duration.ZERO));
    }
    return this;
  }

  /** The next {@code n} searches are answered normally after waiting {@code delay}. */
  public SplunkHecEmulator delayNextSearches(int n, Duration delay) {
    for (int i = 0; i < n; i++) {
      searchFaults.add(new Fault(FaultKind.DELAY, 0, delay));
    }
    return this;
  }

  /** The next {@code n} searches are never answered (until the emulator closes). */
  public SplunkHecEmulator hangNextSearches(int n) {
    for (int i = 0; i < n; i++) {
      searchFaults.add(new Fault(FaultKind.HANG, 0, Duration.ZERO));
    }
    return this;
  }

  /** The {@code search} of every export search answered, in order. */
  public List<String> searchTexts() {
    return List.copyOf(searchTexts);
  }

  /** Export searches received (faults and refused credentials included). */
  public int searches() {
    return searches.get();
  }

  /** Ack ids never become true. */
  public SplunkHecEmulator acksNeverTrue(boolean never) {
    this.acksNeverTrue = never;
    return this;
  }

  /** An ack id becomes true on its {@code polls}-th poll (default 1: the first). */
  public SplunkHecEmulator ackAfterPolls(int polls) {
    this.ackAfterPolls = polls;
    return this;
  }

  /**
   * An ack id becomes true only on a poll at least {@code delay} after its request was accepted
   * (default 0), as when indexers are slow to commit: the events are stored at once, so a sender
   * that sends the batch again meanwhile stores it twice.
   */
  public SplunkHecEmulator ackDelay(Duration delay) {
    this.ackDelay = delay;
    return this;
  }

  private SplunkHecEmulator add(int n, Fault f) {
    for (int i = 0; i < n; i++) {
      faults.add(f);
    }
    return this;
  }

  // ---- inspection ----

  public List<StoredEvent> events() {
    return Collections.unmodifiableList(events);
  }

  /** Removes the stored events that match {@code which} (a loss after the fact); returns how many. */
  public int deleteWhere(java.util.function.Predicate<StoredEvent> which) {
    int before = events.size();
    events.removeIf(which);
    return before - events.size();
  }

  /** Events received and lost on purpose (see {@link #loseNext}). */
  public int lostCount() {
    return lost.get();
  }

  /** Event requests as received, faults included. */
  public List<Received> received() {
    return Collections.unmodifiableList(received);
  }

  /** The ack ids asked about, one list per ack request. */
  public List<List<Long>> ackPolls() {
    return Collections.unmodifiableList(ackPolls);
  }

  // ---- handlers ----

  private interface Handler {
    void handle(HttpExchange ex) throws Exception;
  }

  private void guarded(HttpExchange ex, Handler h) throws IOException {
    try {
      h.handle(ex);
    } catch (Exception e) {
      answer(ex, 500, "{\"text\":\"Internal server error\",\"code\":8}");
    } finally {
      ex.close();
    }
  }

  private static void answer(HttpExchange ex, int status, String body) throws IOException {
    byte[] out = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
    ex.sendResponseHeaders(status, out.length == 0 ? -1 : out.length);
    if (out.length > 0) {
      ex.getResponseBody().write(out);
    }
  }

  private static String hec(String text, int code) {
    return "{\"text\":\"" + text + "\",\"code\":" + code + "}";
  }

  /** Whether the token is fine; when not, the error has been answered. */
  private boolean authorized(HttpExchange ex) throws IOException {
    String auth = ex.getRequestHeaders().getFirst("Authorization");
    if (auth == null || auth.isBlank()) {
      answer(ex, 401, hec("Token is required", 2));
      return false;
    }
    if (!auth.startsWith("Splunk ")) {
      answer(ex, 401, hec("Invalid authorization", 3));
      return false;
    }
    if (!tokens.contains(auth.substring("Splunk ".length()).trim())) {
      answer(ex, 403, hec("Invalid token", 4));
      return false;
    }
    return true;
  }

  /** The request's channel, or null after answering the error (when ack needs one). */
  private String channel(HttpExchange ex, boolean required) throws IOException {
    String channel = ex.getRequestHeaders().getFirst("X-Splunk-Request-Channel");
    if (channel == null) {
      channel = query(ex).get("channel");
    }
    if (channel == null) {
      if (required) {
        answer(ex, 400, hec("Data channel is missing", 10));
      }
      return null;
    }
    try {
      UUID.fromString(channel);
    } catch (IllegalArgumentException e) {
      answer(ex, 400, hec("Invalid data channel", 11));
      return null;
    }
    return channel;
  }

  private void event(HttpExchange ex) throws Exception {
    byte[] body = ex.getRequestBody().readAllBytes();
    Map<String, String> headers = new HashMap<>();
    ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
    received.add(new Received(headers, ex.getRequestURI().getRawQuery(), body));
    Fault fault = faults.poll();
    if (fault != null) {
      switch (fault.kind()) {
        case STATUS -> {
          answer(ex, fault.status(), failureBody(fault.status()));
          return;
        }
        case HANG -> {
          closed.await();
          return;
        }
        case GARBAGE -> {
          answer(ex, 200, "<html><body>Bad Gateway</body></html>");
          return;
        }
        case DELAY -> {
          if (closed.await(fault.delay().toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)) {
            return;
          }
        }
      }
    }
    if (!authorized(ex)) {
      return;
    }
    String channel = null;
    if (ackEnabled) {
      channel = channel(ex, true);
      if (channel == null) {
        return;
      }
    }
    if (body.length == 0 || new String(body, StandardCharsets.UTF_8).isBlank()) {
      answer(ex, 400, hec("No data", 5));
      return;
    }
    List<StoredEvent> parsed = new ArrayList<>();
    int n = 0;
    try (MappingIterator<JsonNode> it = JSON.readerFor(JsonNode.class).readValues(body)) {
      while (it.hasNextValue()) {
        JsonNode e = it.nextValue();
        if (!e.isObject()) {
          answer(ex, 400, invalid("Invalid data format", 6, n));
          return;
        }
        JsonNode event = e.get("event");
        if (event == null) {
          answer(ex, 400, invalid("Event field is required", 12, n));
          return;
        }
        if (event.isTextual() && event.asText().isEmpty()) {
          answer(ex, 400, invalid("Event field cannot be blank", 13, n));
          return;
        }
        String index = e.path("index").asText("main");
        if (indexes != null && !indexes.contains(index)) {
          answer(ex, 400, invalid("Incorrect index", 7, n));
          return;
        }
        Map<String, String> fields = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fi = e.path("fields").fields();
        while (fi.hasNext()) {
          Map.Entry<String, JsonNode> f = fi.next();
          fields.put(f.getKey(), f.getValue().asText());
        }
        parsed.add(
            new StoredEvent(
                timeNanos(e.get("time")), text(e, "host"), text(e, "source"), text(e, "sourcetype"), index,
                event.isTextual() ? event.asText() : event.toString(), fields, channel));
        n++;
      }
    } catch (IOException e) {
      answer(ex, 400, invalid("Invalid data format", 6, n));
      return;
    }
    for (StoredEvent e : parsed) {
      if (eventsToLose.getAndUpdate(v -> Math.max(0, v - 1)) > 0) {
        lost.incrementAndGet();
      } else {
        events.add(e);
      }
    }
    if (ackEnabled) {
      long id = nextAckId.computeIfAbsent(channel, c -> new AtomicLong()).getAndIncrement();
      openAcks.computeIfAbsent(channel, c -> new ConcurrentHashMap<>()).put(id, new OpenAck(0, System.nanoTime()));
      answer(ex, 200, "{\"text\":\"Success\",\"code\":0,\"ackId\":" + id + "}");
    } else {
      answer(ex, 200, hec("Success", 0));
    }
  }

  private static String invalid(String text, int code, int eventNumber) {
    return "{\"text\":\"" + text + "\",\"code\":" + code + ",\"invalid-event-number\":" + eventNumber + "}";
  }

  private static String failureBody(int status) {
    return switch (status) {
      case 400 -> hec("Invalid data format", 6);
      case 401 -> hec("Token is required", 2);
      case 403 -> hec("Invalid token", 4);
      case 500 -> hec("Internal server error", 8);
      case 503 -> hec("Server is busy", 9);
      default -> "{\"text\":\"Injected failure\"}";
    };
  }

  private static String text(JsonNode e, String key) {
    JsonNode v = e.get(key);
    return v == null || v.isNull() ? null : v.asText();
  }

  /**
   * The event's time as stored: Splunk keeps at most microseconds of {@code time}; whether it
   * truncates or rounds finer digits is not documented, so the emulator rounds to the nearest
   * microsecond, the case that can move a time into the next second.
   */
  private static long timeNanos(JsonNode time) {
    if (time == null || time.isNull()) {
      Instant now = Instant.now();
      return now.getEpochSecond() * 1_000_000_000L + now.getNano() / 1_000 * 1_000;
    }
    BigDecimal seconds = time.isNumber() ? time.decimalValue() : new BigDecimal(time.asText());
    return seconds.setScale(6, RoundingMode.HALF_UP).movePointRight(9).longValueExact();
  }

  private void ack(HttpExchange ex) throws Exception {
    byte[] body = ex.getRequestBody().readAllBytes();
    if (!authorized(ex)) {
      return;
    }
    if (!ackEnabled) {
      answer(ex, 400, hec("ACK is disabled", 14));
      return;
    }
    String channel = channel(ex, true);
    if (channel == null) {
      return;
    }
    JsonNode acks;
    try {
      acks = JSON.readTree(body).get("acks");
    } catch (IOException e) {
      acks = null;
    }
    if (acks == null || !acks.isArray()) {
      answer(ex, 400, hec("Invalid data format", 6));
      return;
    }
    List<Long> asked = new ArrayList<>();
    Map<Long, OpenAck> open = openAcks.getOrDefault(channel, Map.of());
    long now = System.nanoTime();
    StringBuilder out = new StringBuilder("{\"acks\":{");
    for (JsonNode id : acks) {
      long ackId = id.asLong();
      asked.add(ackId);
      boolean done = false;
      OpenAck state = open.get(ackId);
      if (state != null && !acksNeverTrue) {
        int seen = state.polls() + 1;
        if (seen >= ackAfterPolls && now - state.acceptedNanos() >= ackDelay.toNanos()) {
          open.remove(ackId);
          done = true;
        } else {
          open.put(ackId, new OpenAck(seen, state.acceptedNanos()));
        }
      }
      out.append('"').append(ackId).append("\":").append(done).append(',');
    }
    if (!asked.isEmpty()) {
      out.setLength(out.length() - 1);
    }
    out.append("}}");
    ackPolls.add(asked);
    answer(ex, 200, out.toString());
  }

  private void health(HttpExchange ex) throws IOException {
    if (unhealthy) {
      answer(ex, 503, hec("HEC is unhealthy, queues are full", 18));
    } else {
      answer(ex, 200, hec("HEC is healthy", 17));
    }
  }

  private void export(HttpExchange ex) throws Exception {
    byte[] body = ex.getRequestBody().readAllBytes();
    searches.incrementAndGet();
    Fault fault = searchFaults.poll();
    if (fault != null && fault.kind() == FaultKind.DELAY) {
      if (closed.await(fault.delay().toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)) {
        return;
      }
    } else if (fault != null) {
      if (fault.kind() == FaultKind.HANG) {
        closed.await();
        return;
      }
      answer(ex, fault.status(), fatal("Injected failure " + fault.status() + "."));
      return;
    }
    if (!searchAuthorization.equals(ex.getRequestHeaders().getFirst("Authorization"))) {
      answer(ex, 401, "{\"messages\":[{\"type\":\"WARN\",\"text\":\"call not properly authenticated\"}]}");
      return;
    }
    Map<String, String> params = new HashMap<>(query(ex));
    params.putAll(form(new String(body, StandardCharsets.UTF_8)));
    if (!"json".equals(params.get("output_mode"))) {
      answer(ex, 400, fatal("The emulator only answers output_mode=json."));
      return;
    }
    searchTexts.add(params.getOrDefault("search", ""));
    Matcher seq = SEQ_SEARCH.matcher(params.getOrDefault("search", ""));
    if (seq.matches()) {
      seqSearch(ex, seq);
      return;
    }
    Matcher m = TSTATS.matcher(params.getOrDefault("search", ""));
    if (!m.matches()) {
      answer(ex, 400, fatal("Error in 'SearchParser': the emulator only answers"
          + " | tstats count where index=<index> [<field>=<value> ...] by _time span=<N><s|m|h|d>"
          + " and search index=<index> [<field>::<value> ...] earliest=<s> latest=<s> | fields seq."));
      return;
    }
    String index = m.group(1);
    List<Term> terms = terms(m.group(2), true);
    List<String> by = new ArrayList<>();
    for (String f : m.group(3).split(",")) {
      if (!f.isBlank()) {
        by.add(f.strip());
      }
    }
    long span = Long.parseLong(m.group(4)) * switch (m.group(5).toLowerCase()) {
      case "s" -> 1L;
      case "m" -> 60L;
      case "h" -> 3600L;
      default -> 86400L;
    } * 1_000_000_000L;
    long earliest;
    long latest;
    try {
      earliest = searchTime(params.get("earliest_time"), Long.MIN_VALUE);
      latest = searchTime(params.get("latest_time"), Long.MAX_VALUE);
    } catch (RuntimeException e) {
      answer(ex, 400, fatal("Invalid earliest_time or latest_time."));
      return;
    }
    // rows by bucket, then by the values of the by fields (events without one of them are left
    // out, as tstats leaves out events without a by field)
    TreeMap<Long, TreeMap<List<String>, Long>> buckets = new TreeMap<>();
    for (StoredEvent e : events) {
      if (e.index().equals(index) && e.timeNanos() >= earliest && e.timeNanos() < latest && matches(terms, e)) {
        List<String> values = new ArrayList<>();
        for (String f : by) {
          values.add(e.fields().get(f));
        }
        if (!values.contains(null)) {
          buckets.computeIfAbsent(Math.floorDiv(e.timeNanos(), span) * span,
              t -> new TreeMap<>(java.util.Comparator.comparing(List::toString))).merge(values, 1L, Long::sum);
        }
      }
    }
    int rows = buckets.values().stream().mapToInt(Map::size).sum();
    StringBuilder out = new StringBuilder();
    int offset = 0;
    for (Map.Entry<Long, TreeMap<List<String>, Long>> b : buckets.entrySet()) {
      String time = SPLUNK_TIME.format(Instant.ofEpochSecond(0, b.getKey()));
      for (Map.Entry<List<String>, Long> group : b.getValue().entrySet()) {
        Map<String, String> result = new LinkedHashMap<>();
        result.put("_time", time);
        for (int i = 0; i < by.size(); i++) {
          result.put(by.get(i), group.getKey().get(i));
        }
        result.put("count", String.valueOf(group.getValue()));
        out.append("{\"preview\":false,\"offset\":").append(offset)
            .append(offset == rows - 1 ? ",\"lastrow\":true" : "")
            .append(",\"result\":").append(JSON.writeValueAsString(result)).append("}\n");
        offset++;
      }
    }
    answer(ex, 200, out.toString());
  }

  private void seqSearch(HttpExchange ex, Matcher m) throws IOException {
    String index = m.group(1);
    List<Term> terms = terms(m.group(2), false);
    long earliest = searchTime(m.group(3), Long.MIN_VALUE);
    long latest = searchTime(m.group(4), Long.MAX_VALUE);
    int head = m.group(5) == null ? Integer.MAX_VALUE : Integer.parseInt(m.group(5));
    List<StoredEvent> hits = new ArrayList<>();
    for (StoredEvent e : events) {
      if (e.index().equals(index) && e.timeNanos() >= earliest && e.timeNanos() < latest && matches(terms, e)) {
        hits.add(e);
      }
    }
    hits.sort(java.util.Comparator.comparingLong(StoredEvent::timeNanos));
    StringBuilder out = new StringBuilder();
    int n = Math.min(head, hits.size());
    for (int i = 0; i < n; i++) {
      StoredEvent e = hits.get(i);
      String time = SPLUNK_TIME.format(Instant.ofEpochSecond(0, e.timeNanos()));
      out.append("{\"preview\":false,\"offset\":").append(i).append(i == n - 1 ? ",\"lastrow\":true" : "")
          .append(",\"result\":{\"_time\":\"").append(time).append("\",\"seq\":\"")
          .append(e.fields().getOrDefault("seq", "")).append("\"}}\n");
    }
    answer(ex, 200, out.toString());
  }

  /**
   * A field term of a search: {@code indexed} when it reads the indexed field alone ({@code ::},
   * or any term of tstats), else the value must also be among the event's raw words.
   */
  private record Term(String field, String value, boolean indexed) {}

  private static List<Term> terms(String text, boolean tstats) {
    List<Term> out = new ArrayList<>();
    Matcher t = TERM.matcher(text == null ? "" : text);
    while (t.find()) {
      out.add(new Term(t.group(1), t.group(3) != null ? t.group(3) : t.group(4), tstats || t.group(2).equals("::")));
    }
    return out;
  }

  private static boolean matches(List<Term> terms, StoredEvent e) {
    for (Term t : terms) {
      if (!t.value().equals(e.fields().get(t.field()))) {
        return false;
      }
      if (!t.indexed() && !e.event().contains(t.value())) {
        return false;
      }
    }
    return true;
  }

  private static String fatal(String text) {
    return "{\"messages\":[{\"type\":\"FATAL\",\"text\":\"" + text + "\"}]}";
  }

  private static long searchTime(String v, long fallback) {
    if (v == null || v.isBlank()) {
      return fallback;
    }
    if (v.matches("-?\\d+(\\.\\d+)?")) {
      return new BigDecimal(v).movePointRight(9).longValueExact();
    }
    Instant t = OffsetDateTime.parse(v).toInstant();
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }

  private static Map<String, String> query(HttpExchange ex) {
    String q = ex.getRequestURI().getRawQuery();
    return q == null ? Map.of() : form(q);
  }

  private static Map<String, String> form(String s) {
    Map<String, String> out = new HashMap<>();
    for (String pair : s.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return out;
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
