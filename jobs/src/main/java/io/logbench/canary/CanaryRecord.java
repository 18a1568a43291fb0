package io.logbench.canary;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.verify.Drill;
import io.logbench.verify.Verdict;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * One final result of a canary's checks, as a line of its verdict files: a fresh window's verdict
 * ({@link Check#WINDOW}), or a spot check of a window verified earlier ({@link Check#SPOT}, with
 * the age it was counted at and what it held at its verdict), with the drill-down's sequence ids
 * where one was made.
 *
 * @param age a spot check's age ({@code 1h}, ..., {@code older}); empty for a window's verdict
 * @param heldBefore a spot check's lines held at the window's verdict; -1 for a window's verdict
 * @param drill the drill-down, or null when none was made
 * @param decidedMillis when the result became final (epoch ms)
 * @param row a window's ledger row at its verdict (null for a spot check, or a window with no row)
 */
public record CanaryRecord(String backend, Check check, String age, CanaryWindow window, Verdict verdict,
    long heldBefore, Drill drill, long decidedMillis, io.logbench.ledger.LedgerEntry row) {

  /** What was checked. */
  public enum Check {
    /** A window's own verdict, once it settled. */
    WINDOW,
    /** A window verified earlier, counted again at an age. */
    SPOT
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

  /** The record as one JSON object (the verdict files' line), times in {@code zone}. */
  public String json(ZoneId zone) {
    ObjectNode o = JSON.createObjectNode();
    o.put("decided", Instant.ofEpochMilli(decidedMillis).toString());
    o.put("backend", backend);
    o.put("check", check.name().toLowerCase(java.util.Locale.ROOT));
    if (check == Check.SPOT) {
      o.put("age", age);
    }
    o.put("window_start", TIME.format(Instant.ofEpochMilli(window.start()).atZone(zone)));
    o.put("window_end", TIME.format(Instant.ofEpochMilli(window.end()).atZone(zone)));
    o.put("window_start_millis", window.start());
    o.put("first_seq", window.firstSeq());
    o.put("end_seq", window.endSeq());
    o.put("expected", verdict.expected());
    o.put("acked", verdict.acked());
    o.put("observed", verdict.observed());
    if (check == Check.SPOT) {
      o.put("held_before", heldBefore);
    }
    o.put("status", verdict.status().name());
    o.put("detail", verdict.detail());
    if (!verdict.rejected().isEmpty()) {
      ObjectNode r = o.putObject("rejected");
      verdict.rejected().forEach(r::put);
    }
    if (drill != null) {
      ArrayNode missing = o.putArray("missing_ids");
      drill.missing().forEach(missing::add);
      o.put("missing_total", drill.missingTotal());
      putCounts(o, "duplicate_ids", drill.duplicates());
      putCounts(o, "replayed_ids", drill.replayed());
      if (!drill.strangers().isEmpty()) {
        ArrayNode s = o.putArray("stranger_ids");
        drill.strangers().forEach(s::add);
      }
      if (!drill.note().isEmpty()) {
        o.put("drill_note", drill.note());
      }
    }
    return o.toString();
  }

  private static void putCounts(ObjectNode o, String key, Map<Long, Integer> counts) {
    if (!counts.isEmpty()) {
      ObjectNode d = o.putObject(key);
      counts.forEach((id, n) -> d.put(Long.toString(id), n));
    }
  }
}
