package io.logbench.ledger;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.rundir.RunDir;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ledger's files in a run directory, and the reader the verifier uses.
 *
 * <ul>
 *   <li>{@value #CSV}: written once at the end of a bounded run, one final row per backend and
 *       window, sorted by backend then window start. Header {@value #CSV_HEADER}; times are
 *       ISO-8601 with the offset of the run's zone; {@code rejected} is the total and {@code
 *       rejected_reasons} lists {@code reason=count} pairs joined by {@code "; "}, sorted by
 *       reason, with {@code %}, {@code ;} and {@code =} in a reason written as {@code %25},
 *       {@code %3B} and {@code %3D}; a field holding a comma, quote or newline is quoted as in
 *       RFC 4180.
 *   <li>{@value #JSONL}: an upsert log, one JSON object per changed row, appended as the run goes;
 *       the last object of a (backend, window_start) is its current row. A restore truncates it to
 *       its length at the checkpoint restored.
 *   <li>{@value #SEGMENTS}{@code /<n>.jsonl}: the same upsert log where the run directory is not
 *       local (an object store, HDFS: no append, no truncate), as segments each written once and
 *       whole: segment {@code n} (20 digits) holds the rows flushed after segment {@code n - 1};
 *       the log is the segments in the order of their numbers. A checkpoint records the next
 *       number, and a restore deletes the segments from that number on (written after the
 *       checkpoint, their rows come again), so the numbers it writes next are free again.
 * </ul>
 *
 * <p>Readers read both layouts, so verify, report and resume work on either.
 */
public final class LedgerFiles {

  public static final String CSV = "ledger.csv";
  public static final String JSONL = "ledger.jsonl";
  /** The folder of the upsert log's segments, where the run directory is not local. */
  public static final String SEGMENTS = "ledger-log";
  public static final String CSV_HEADER =
      "backend,window_start,window_end,expected,sent,acked,rejected,rejected_reasons";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

  private LedgerFiles() {}

  /**
   * The final rows of a run: {@value #CSV} when the run finished, otherwise the last row of each
   * key in the upsert log ({@value #JSONL}, or its {@value #SEGMENTS}); sorted by backend, then
   * window start.
   *
   * @throws IOException if the directory has no ledger, or a row cannot be read
   */
  public static List<LedgerEntry> read(Path runDir) throws IOException {
    return read(RunDir.of(runDir));
  }

  /** As {@link #read(Path)}, for a run directory anywhere. */
  public static List<LedgerEntry> read(RunDir runDir) throws IOException {
    if (runDir.exists(CSV)) {
      return readCsv(runDir);
    }
    if (runDir.exists(JSONL) || !runDir.files(SEGMENTS).isEmpty()) {
      return sorted(readLog(runDir, false));
    }
    throw new IOException("No ledger in " + runDir + ": neither " + CSV + " nor " + JSONL + " nor " + SEGMENTS
        + "/ exists; was the run started with this directory?");
  }

  /**
   * The rows of a run directory that may still be written to: {@value #CSV} when it exists,
   * else the last row of each key in the upsert log (of {@value #JSONL}, its complete lines only:
   * a line the writer has not finished yet is left for the next read), else none.
   */
  public static List<LedgerEntry> readLive(Path runDir) throws IOException {
    return readLive(RunDir.of(runDir));
  }

  /** As {@link #readLive(Path)}, for a run directory anywhere. */
  public static List<LedgerEntry> readLive(RunDir runDir) throws IOException {
    if (runDir.exists(CSV)) {
      return readCsv(runDir);
    }
    return readLog(runDir, true);
  }

  /**
   * The last row of each key in the upsert log: {@value #JSONL} (a local run directory) and the
   * {@value #SEGMENTS} in the order of their numbers (any other); a line without its newline is
   * skipped when {@code live} (its writer is still at it) and read otherwise.
   */
  static List<LedgerEntry> readLog(RunDir runDir, boolean live) throws IOException {
    TreeMap<LedgerEntry.Key, LedgerEntry> last = new TreeMap<>();
    if (runDir.exists(JSONL)) {
      String text = runDir.readString(JSONL);
      readRows(live ? text.substring(0, text.lastIndexOf('\n') + 1) : text, runDir.describe(JSONL), last);
    }
    for (String segment : segments(runDir)) {
      String name = SEGMENTS + "/" + segment;
      String text = runDir.readString(name);
      // whole on an object store; a file system that shows a file while it is written (HDFS) may
      // show a segment's last line unfinished
      readRows(live ? text.substring(0, text.lastIndexOf('\n') + 1) : text, runDir.describe(name), last);
    }
    return new ArrayList<>(last.values());
  }

  private static void readRows(String text, String where, TreeMap<LedgerEntry.Key, LedgerEntry> last)
      throws IOException {
    String[] lines = text.split("\n");
    for (int i = 0; i < lines.length; i++) {
      if (!lines[i].isBlank()) {
        LedgerEntry e = parseJsonRow(lines[i], where + " line " + (i + 1));
        last.put(e.key(), e);
      }
    }
  }

  /** The names of the log's segments in {@code runDir}, in the order of their numbers. */
  public static List<String> segments(RunDir runDir) throws IOException {
    List<String> out = new ArrayList<>();
    for (String f : runDir.files(SEGMENTS)) {
      if (segmentNumber(f) >= 0) {
        out.add(f);
      }
    }
    out.sort(java.util.Comparator.comparingLong(LedgerFiles::segmentNumber));
    return out;
  }

  /** The name of the log's segment number {@code n}: fixed width, so names sort as numbers. */
  public static String segmentName(long n) {
    return String.format(java.util.Locale.ROOT, "%020d.jsonl", n);
  }

  /** The number of segment {@code name}, or -1 when the name is not a segment's. */
  public static long segmentNumber(String name) {
    if (!name.matches("\\d{1,20}\\.jsonl")) {
      return -1;
    }
    return Long.parseLong(name.substring(0, name.indexOf('.')));
  }

  /** Writes {@value #CSV} whole (a reader never sees half of it). */
  public static void writeCsv(Path runDir, Collection<LedgerEntry> entries, ZoneId zone) throws IOException {
    writeCsv(RunDir.of(runDir), entries, zone);
  }

  /** As {@link #writeCsv(Path, Collection, ZoneId)}, for a run directory anywhere. */
  public static void writeCsv(RunDir runDir, Collection<LedgerEntry> entries, ZoneId zone) throws IOException {
    StringBuilder out = new StringBuilder(CSV_HEADER).append('\n');
    for (LedgerEntry e : sorted(entries)) {
      out.append(csvRow(e, zone)).append('\n');
    }
    runDir.writeString(CSV, out.toString());
  }

  /** Entries sorted by backend, then window start. */
  public static List<LedgerEntry> sorted(Collection<LedgerEntry> entries) {
    List<LedgerEntry> out = new ArrayList<>(entries);
    out.sort((a, b) -> a.key().compareTo(b.key()));
    return out;
  }

  /** One CSV row (no newline). */
  public static String csvRow(LedgerEntry e, ZoneId zone) {
    return String.join(
        ",",
        csvField(e.backend()),
        time(e.windowStartMillis(), zone),
        time(e.windowEndMillis(), zone),
        Long.toString(e.expected()),
        Long.toString(e.sent()),
        Long.toString(e.acked()),
        Long.toString(e.rejectedTotal()),
        csvField(reasons(e.rejected())));
  }

  /** One JSON object (no newline). */
  public static String jsonRow(LedgerEntry e, ZoneId zone) {
    StringBuilder out = new StringBuilder(192);
    new JsonRows(zone, out).append(e);
    return out.substring(0, out.length() - 1);
  }

  /**
   * Appends rows to one {@link StringBuilder} as {@link #jsonRow} writes them, each followed by a
   * newline, for a writer that logs a row per batch: one JSON generator for all rows, and the
   * last two window bounds kept formatted (a batch's rows mostly share their window's). Writing
   * each row through a fresh tree, mapper call and {@link DateTimeFormatter} was 1.9% of a 100k
   * lines/s run's CPU (docs/benchmarks.md, thirteenth round).
   */
  public static final class JsonRows {
    private final ZoneId zone;
    private final StringBuilder out;
    private final JsonGenerator json;
    /** The two bounds kept formatted: {@code formatted[i]} (null: none yet) is {@code formattedMillis[i]}'s. */
    private final long[] formattedMillis = new long[2];
    private final String[] formatted = new String[2];
    private int nextSlot;

    public JsonRows(ZoneId zone, StringBuilder out) {
      this.zone = zone;
      this.out = out;
      try {
        this.json = JSON.getFactory().createGenerator(new Appending(out));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      json.setRootValueSeparator(null);
    }

    /** Appends {@code e}'s row and a newline. */
    public void append(LedgerEntry e) {
      try {
        json.writeStartObject();
        json.writeStringField("backend", e.backend());
        json.writeStringField("window_start", time(e.windowStartMillis()));
        json.writeStringField("window_end", time(e.windowEndMillis()));
        json.writeNumberField("expected", e.expected());
        json.writeNumberField("sent", e.sent());
        json.writeNumberField("acked", e.acked());
        json.writeNumberField("rejected", e.rejectedTotal());
        json.writeObjectFieldStart("rejected_reasons");
        for (Map.Entry<String, Long> r : e.rejected().entrySet()) {
          json.writeNumberField(r.getKey(), r.getValue());
        }
        json.writeEndObject();
        json.writeEndObject();
        json.flush();
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
      out.append('\n');
    }

    private String time(long millis) {
      for (int i = 0; i < 2; i++) {
        if (formatted[i] != null && formattedMillis[i] == millis) {
          return formatted[i];
        }
      }
      String s = LedgerFiles.time(millis, zone);
      formattedMillis[nextSlot] = millis;
      formatted[nextSlot] = s;
      nextSlot ^= 1;
      return s;
    }
  }

  /** A {@link Writer} that appends to a {@link StringBuilder}. */
  private static final class Appending extends Writer {
    private final StringBuilder out;

    Appending(StringBuilder out) {
      this.out = out;
    }

    @Override
    public void write(char[] chars, int off, int len) {
      out.append(chars, off, len);
    }

    @Override
    public void write(String str, int off, int len) {
      out.append(str, off, off + len);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  static List<LedgerEntry> readCsv(RunDir runDir) throws IOException {
    String csv = runDir.describe(CSV);
    List<String> lines = runDir.readString(CSV).lines().toList();
    if (lines.isEmpty() || !lines.get(0).equals(CSV_HEADER)) {
      throw new IOException(csv + " does not start with the ledger header " + CSV_HEADER + ".");
    }
    List<LedgerEntry> out = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      if (lines.get(i).isEmpty()) {
        continue;
      }
      out.add(parseCsvRow(lines.get(i), csv + " line " + (i + 1)));
    }
    return sorted(out);
  }

  static LedgerEntry parseCsvRow(String line, String where) throws IOException {
    List<String> f = splitCsv(line);
    if (f.size() != 8) {
      throw new IOException(where + ": expected 8 fields but found " + f.size() + ".");
    }
    try {
      LedgerEntry e =
          new LedgerEntry(
              f.get(0), millis(f.get(1)), millis(f.get(2)), Long.parseLong(f.get(3)),
              Long.parseLong(f.get(4)), Long.parseLong(f.get(5)), parseReasons(f.get(7)));
      if (e.rejectedTotal() != Long.parseLong(f.get(6))) {
        throw new IOException(where + ": rejected is " + f.get(6) + " but its reasons add up to " + e.rejectedTotal() + ".");
      }
      return e;
    } catch (NumberFormatException | DateTimeParseException ex) {
      throw new IOException(where + ": " + ex.getMessage(), ex);
    }
  }

  static List<LedgerEntry> readJsonl(Path jsonl) throws IOException {
    TreeMap<LedgerEntry.Key, LedgerEntry> last = new TreeMap<>();
    readRows(Files.readString(jsonl, StandardCharsets.UTF_8), jsonl.toString(), last);
    return new ArrayList<>(last.values());
  }

  static LedgerEntry parseJsonRow(String line, String where) throws IOException {
    try {
      JsonNode o = JSON.readTree(line);
      TreeMap<String, Long> reasons = new TreeMap<>();
      o.path("rejected_reasons").properties().forEach(p -> reasons.put(p.getKey(), p.getValue().asLong()));
      return new LedgerEntry(
          o.get("backend").asText(), millis(o.get("window_start").asText()), millis(o.get("window_end").asText()),
          o.get("expected").asLong(), o.get("sent").asLong(), o.get("acked").asLong(), reasons);
    } catch (IOException | RuntimeException ex) {
      throw new IOException(where + " is not a ledger row: " + ex.getMessage(), ex);
    }
  }

  static String time(long millis, ZoneId zone) {
    return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), zone).format(TIME);
  }

  static long millis(String time) {
    return OffsetDateTime.parse(time, TIME).toInstant().toEpochMilli();
  }

  /** {@code reason=count} pairs joined by {@code "; "}, reasons escaped. */
  static String reasons(Map<String, Long> rejected) {
    StringBuilder out = new StringBuilder();
    new TreeMap<>(rejected).forEach((reason, n) -> {
      if (out.length() > 0) {
        out.append("; ");
      }
      out.append(reason.replace("%", "%25").replace(";", "%3B").replace("=", "%3D")).append('=').append(n);
    });
    return out.toString();
  }

  static Map<String, Long> parseReasons(String cell) {
    TreeMap<String, Long> out = new TreeMap<>();
    if (cell.isEmpty()) {
      return out;
    }
    for (String pair : cell.split("; ")) {
      int eq = pair.lastIndexOf('=');
      if (eq < 0) {
        throw new NumberFormatException("rejected reason '" + pair + "' has no '=count'");
      }
      String reason = pair.substring(0, eq).replace("%3D", "=").replace("%3B", ";").replace("%25", "%");
      out.merge(reason, Long.parseLong(pair.substring(eq + 1)), Long::sum);
    }
    return out;
  }

  static String csvField(String s) {
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }

  /** The fields of one CSV line (RFC 4180 quotes; the files logbench writes hold no line break in a field). */
  public static List<String> splitCsv(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder f = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          f.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          f.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        out.add(f.toString());
        f.setLength(0);
      } else {
        f.append(c);
      }
    }
    out.add(f.toString());
    return out;
  }
}
