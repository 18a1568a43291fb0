package io.logbench.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What one restored task of one backend sends again that an earlier attempt may have sent: one
 * line of {@value ReplayFiles#RESTORES}. A restore of a backend's pipeline writes one record per
 * source subtask ({@link #SOURCE}: where each of its stripes went back to, and the lease that
 * bounds what the failed attempt had emitted) and, when batches were in flight in the delivery
 * operator's checkpoint, one per delivery subtask ({@link #IN_FLIGHT}: those batches).
 *
 * @param kind {@link #SOURCE} or {@link #IN_FLIGHT}
 * @param timeMillis when the restored task wrote it, epoch milliseconds
 * @param backend backend name
 * @param subtask index of the restored subtask
 * @param attempt the task's attempt number (0 for the first), or -1 when unknown (source records)
 * @param checkpointId the checkpoint restored from, or -1 for none (a restart from the start)
 * @param stripes where each of the source subtask's stripes went back to (source records)
 * @param replayed the batches sent again that may have been sent before
 */
public record RestoreRecord(String kind, long timeMillis, String backend, int subtask, int attempt,
    long checkpointId, List<StripePosition> stripes, List<ReplayedRange> replayed) implements Serializable {

  private static final long serialVersionUID = 1L;

  /** A source subtask's record. */
  public static final String SOURCE = "source";
  /** A delivery subtask's record of its restored in-flight batches. */
  public static final String IN_FLIGHT = "in-flight";

  private static final ObjectMapper JSON = new ObjectMapper();

  public RestoreRecord {
    stripes = List.copyOf(stripes);
    replayed = List.copyOf(replayed);
  }

  /**
   * One stripe's restored position.
   *
   * @param stripe the stripe
   * @param stripes number of stripes of the run
   * @param restoredBatch the next batch it emits after the restore
   * @param leaseBatch the highest batch the failed attempt may have emitted (its lease)
   */
  public record StripePosition(int stripe, int stripes, long restoredBatch, long leaseBatch)
      implements Serializable {}

  /** Batches sent again over all ranges. */
  public long batches() {
    return replayed.stream().mapToLong(ReplayedRange::batches).sum();
  }

  /** Lines sent again over all ranges. */
  public long lines() {
    return replayed.stream().mapToLong(ReplayedRange::lines).sum();
  }

  /** The record as one line of JSON (no newline). */
  public String toJson() {
    ObjectNode o = JSON.createObjectNode();
    o.put("kind", kind);
    o.put("time", Instant.ofEpochMilli(timeMillis).toString());
    o.put("time_millis", timeMillis);
    o.put("backend", backend);
    o.put("subtask", subtask);
    if (attempt >= 0) {
      o.put("attempt", attempt);
    } else {
      o.putNull("attempt");
    }
    if (checkpointId >= 0) {
      o.put("checkpoint_id", checkpointId);
    } else {
      o.putNull("checkpoint_id");
    }
    ArrayNode s = o.putArray("stripes");
    for (StripePosition p : stripes) {
      ObjectNode n = s.addObject();
      n.put("stripe", p.stripe());
      n.put("stripes", p.stripes());
      n.put("restored_batch", p.restoredBatch());
      n.put("lease_batch", p.leaseBatch());
    }
    ArrayNode r = o.putArray("replayed");
    for (ReplayedRange x : replayed) {
      ObjectNode n = r.addObject();
      n.put("first_batch", x.firstBatch());
      n.put("last_batch", x.lastBatch());
      n.put("batch_step", x.batchStep());
      n.put("first_seq", x.firstSeq());
      n.put("seq_step", x.seqStep());
      n.put("batch_lines", x.batchLines());
      n.put("end_seq", x.endSeq());
      n.put("batches", x.batches());
      n.put("lines", x.lines());
    }
    o.put("batches", batches());
    o.put("lines", lines());
    try {
      return JSON.writeValueAsString(o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads a record written by {@link #toJson}.
   *
   * @throws IOException naming {@code where} when the line is not a restore record
   */
  public static RestoreRecord parse(String line, String where) throws IOException {
    try {
      JsonNode o = JSON.readTree(line);
      List<StripePosition> stripes = new ArrayList<>();
      for (JsonNode n : o.path("stripes")) {
        stripes.add(new StripePosition(n.get("stripe").asInt(), n.get("stripes").asInt(),
            n.get("restored_batch").asLong(), n.get("lease_batch").asLong()));
      }
      List<ReplayedRange> replayed = new ArrayList<>();
      for (JsonNode n : o.path("replayed")) {
        replayed.add(new ReplayedRange(n.get("first_batch").asLong(), n.get("last_batch").asLong(),
            n.get("batch_step").asLong(), n.get("first_seq").asLong(), n.get("seq_step").asLong(),
            n.get("batch_lines").asInt(), n.get("end_seq").asLong()));
      }
      JsonNode attempt = o.get("attempt");
      JsonNode checkpoint = o.get("checkpoint_id");
      return new RestoreRecord(o.get("kind").asText(), o.get("time_millis").asLong(), o.get("backend").asText(),
          o.get("subtask").asInt(), attempt == null || attempt.isNull() ? -1 : attempt.asInt(),
          checkpoint == null || checkpoint.isNull() ? -1 : checkpoint.asLong(), stripes, replayed);
    } catch (IOException | RuntimeException e) {
      throw new IOException(where + " is not a restore record: " + e.getMessage(), e);
    }
  }
}
