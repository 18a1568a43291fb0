package io.logbench.replay;

import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The restore records of one backend: which lines restores sent again, as many times as they did,
 * so the verifier can tell copies made by at-least-once replay from copies nobody sent, and the
 * summary can count what was sent again.
 */
public final class Replays implements Serializable {

  private static final long serialVersionUID = 1L;

  private final List<RestoreRecord> records;

  private Replays(List<RestoreRecord> records) {
    this.records = List.copyOf(records);
  }

  /** No restore. */
  public static Replays none() {
    return new Replays(List.of());
  }

  /** The records of {@code backend} among {@code all}. */
  public static Replays of(List<RestoreRecord> all, String backend) {
    return new Replays(all.stream().filter(r -> r.backend().equals(backend)).toList());
  }

  public List<RestoreRecord> records() {
    return records;
  }

  /** No line was sent again. */
  public boolean isEmpty() {
    return records.stream().allMatch(r -> r.replayed().isEmpty());
  }

  /** Source subtasks restored (a backend restored at parallelism 2 counts 2). */
  public long restores() {
    return records.stream().filter(r -> r.kind().equals(RestoreRecord.SOURCE)).count();
  }

  /** Batches sent again, over every restore. */
  public long batches() {
    return records.stream().mapToLong(RestoreRecord::batches).sum();
  }

  /** Lines sent again, over every restore. */
  public long lines() {
    return records.stream().mapToLong(RestoreRecord::lines).sum();
  }

  /** Whether line {@code seq} was sent again by some restore. */
  public boolean contains(long seq) {
    for (RestoreRecord r : records) {
      for (ReplayedRange x : r.replayed()) {
        if (x.contains(seq)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Lines with ids in {@code [lo, hi)} sent again, once per restore that sent them. */
  public long linesIn(long lo, long hi) {
    long n = 0;
    for (RestoreRecord r : records) {
      for (ReplayedRange x : r.replayed()) {
        n += x.linesIn(lo, hi);
      }
    }
    return n;
  }

  /**
   * The restores that sent lines with ids in {@code [lo, hi)} again, one phrase each, at most
   * {@code limit} then a count of the others: e.g. {@code "seq 4000-7099 (batches 40-70, every
   * 2nd) by source subtask 0 restored at 2025-01-02T03:04:05.678Z from checkpoint 3"}.
   */
  public String describe(long lo, long hi, int limit) {
    List<String> parts = new ArrayList<>();
    int more = 0;
    for (RestoreRecord r : records) {
      for (ReplayedRange x : r.replayed()) {
        long[] b = x.boundsIn(lo, hi);
        if (b == null) {
          continue;
        }
        if (parts.size() == limit) {
          more++;
          continue;
        }
        String batches = x.batches() == 1 ? "in-flight batch " + x.firstBatch()
            : "batches " + x.firstBatch() + "-" + x.lastBatch()
                + (x.batchStep() == 1 ? "" : ", every " + ordinal(x.batchStep()));
        parts.add("seq " + b[0] + "-" + b[1] + " (" + batches + ") by " + r.kind() + " subtask " + r.subtask()
            + " restored at " + Instant.ofEpochMilli(r.timeMillis())
            + (r.checkpointId() >= 0 ? " from checkpoint " + r.checkpointId() : " from the start (no checkpoint)"));
      }
    }
    String text = String.join("; ", parts);
    return more == 0 ? text : text + "; and " + more + " more range(s)";
  }

  private static String ordinal(long n) {
    long tens = n % 100;
    String suffix = tens >= 11 && tens <= 13 ? "th" : switch ((int) (n % 10)) {
      case 1 -> "st";
      case 2 -> "nd";
      case 3 -> "rd";
      default -> "th";
    };
    return n + suffix;
  }
}
