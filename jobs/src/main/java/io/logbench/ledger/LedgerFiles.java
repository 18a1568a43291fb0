package io.logbench.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
 *       the last object of a (backend, window_start) is its current row.
 * </ul>
 */
public final class LedgerFiles {

  public static final String CSV = "ledger.csv";
  public static final String JSONL = "ledger.jsonl";
  public static final String CSV_HEADER =
      "backend,window_start,window_end,expected,sent,acked,rejected,rejected_reasons";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

  private LedgerFiles() {}

  /**
   * The final rows of a run: {@value #CSV} when the run finished, otherwise the last row of each
   * key in {@value #JSONL}; sorted by backend, then window start.
   *
   * @throws IOException if the directory has neither file, or a row cannot be read
   */
  public static List<LedgerEntry> read(Path runDir) throws IOException {
    Path csv = runDir.resolve(CSV);
    if (Files.exists(csv)) {
      return readCsv(csv);
    }
    Path jsonl = runDir.resolve(JSONL);
    if (Files.exists(jsonl)) {
      return readJsonl(jsonl);
    }
    throw new IOException(
        "No ledger in " + runDir + ": neither " + CSV + " nor " + JSONL + " exists; was the run started with this directory?");
  }

  /**
   * The rows of a run directory that may still be written to: {@value #CSV} when it exists,
   * else the last row of each key in the complete lines of {@value #JSONL} (a line the writer has
   * not finished yet is left for the next read), else none.
   */
  public static List<LedgerEntry> readLive(Path runDir) throws IOException {
    Path csv = runDir.resolve(CSV);
    if (Files.exists(csv)) {
      return readCsv(csv);
    }
    Path jsonl = runDir.resolve(JSONL);
    if (!Files.exists(jsonl)) {
      return List.of();
    }
    String text = Files.readString(jsonl, StandardCharsets.UTF_8);
    TreeMap<LedgerEntry.Key, LedgerEntry> last = new TreeMap<>();
    String[] lines = text.substring(0, text.lastIndexOf('\n') + 1).split("\n");
    for (int i = 0; i < lines.length; i++) {
      if (!lines[i].isBlank()) {
        LedgerEntry e = parseJsonRow(lines[i], jsonl + " line " + (i + 1));
        last.put(e.key(), e);
      }
    }
    return new ArrayList<>(last.values());
  }

  /** Writes {@value #CSV} (through a temporary file, so a reader never sees half of it). */
  public static void writeCsv(Path runDir, Collection<LedgerEntry> entries, ZoneId zone) throws IOException {
    StringBuilder out = new StringBuilder(CSV_HEADER).append('\n');
    for (LedgerEntry e : sorted(entries)) {
      out.append(csvRow(e, zone)).append('\n');
    }
    writeAtomically(runDir.resolve(CSV), out.toString());
  }

  /** Writes {@code text} to {@code file} through a temporary file in the same directory. */
  static void writeAtomically(Path file, String text) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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
    ObjectNode o = JSON.createObjectNode();
    o.put("backend", e.backend());
    o.put("window_start", time(e.windowStartMillis(), zone));
    o.put("window_end", time(e.windowEndMillis(), zone));
    o.put("expected", e.expected());
    o.put("sent", e.sent());
    o.put("acked", e.acked());
    o.put("rejected", e.rejectedTotal());
    ObjectNode reasons = o.putObject("rejected_reasons");
    e.rejected().forEach(reasons::put);
    try {
      return JSON.writeValueAsString(o);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  static List<LedgerEntry> readCsv(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
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
    List<String> lines = Files.readAllLines(jsonl, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).isBlank()) {
        continue;
      }
      LedgerEntry e = parseJsonRow(lines.get(i), jsonl + " line " + (i + 1));
      last.put(e.key(), e);
    }
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
