package io.logbench.verify;

import io.logbench.count.LineIds;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The drill-down of a MISSING or DUPLICATE window: which sequence ids of the window's expected
 * range {@code [firstId, lastId]} were not found (missing), and which were found more than once
 * (duplicates), from the ids a backend read back. Rejected lines are among the missing ids too:
 * the ledger counts rejections per window, not per line. Pure.
 *
 * @param missing ids of the range not found, ascending, at most the limit
 * @param missingTotal all ids of the range not found
 * @param duplicates ids found more than once, with how often they were found, ascending, at most
 *     the limit
 * @param strangers ids found that are outside the range (e.g. lines of another run), at most the limit
 * @param note why the drill-down is partial or impossible; empty when complete
 */
public record Drill(List<Long> missing, long missingTotal, Map<Long, Integer> duplicates, List<Long> strangers,
    String note) implements Serializable {

  private static final long serialVersionUID = 1L;

  public Drill {
    missing = List.copyOf(missing);
    duplicates = new TreeMap<>(duplicates);
    strangers = List.copyOf(strangers);
    note = note == null ? "" : note;
  }

  /** A drill-down that could not be made, and why. */
  public static Drill impossible(String why) {
    return new Drill(List.of(), 0, Map.of(), List.of(), why);
  }

  /**
   * Compares the observed ids of a window with its expected range.
   *
   * @param firstId the window's first expected id
   * @param lastExclusive one past its last expected id
   * @param observed ids read back (repeats as often as held)
   * @param fromNanosOffsets the ids are {@code seq mod 999,999} ({@link LineIds#fromNanos}) and
   *     are mapped back into the range; possible only for ranges of at most 999,999 ids
   * @param limit most ids listed of each kind
   */
  public static Drill of(long firstId, long lastExclusive, List<Long> observed, boolean fromNanosOffsets, int limit) {
    long size = lastExclusive - firstId;
    if (fromNanosOffsets && size > LineIds.MODULUS) {
      return impossible("the window expects " + size + " lines, more than " + LineIds.MODULUS
          + ", so ids read from nanosecond offsets cannot be mapped back to sequence ids");
    }
    if (size > Integer.MAX_VALUE - 8) {
      return impossible("the window expects too many lines (" + size + ") to list its ids");
    }
    int[] seen = new int[(int) Math.max(0, size)];
    Map<Long, Integer> dups = new TreeMap<>();
    List<Long> strangers = new ArrayList<>();
    Map<Long, Integer> strangerCounts = new HashMap<>();
    for (long raw : observed) {
      long id = raw;
      if (fromNanosOffsets && raw >= 0) {
        id = firstId + Math.floorMod(raw - firstId, LineIds.MODULUS);
      }
      if (id < firstId || id >= lastExclusive) {
        if (strangerCounts.merge(id, 1, Integer::sum) == 1 && strangers.size() < limit) {
          strangers.add(id);
        }
        continue;
      }
      int k = (int) (id - firstId);
      seen[k]++;
    }
    List<Long> missing = new ArrayList<>();
    long missingTotal = 0;
    for (int k = 0; k < seen.length; k++) {
      if (seen[k] == 0) {
        missingTotal++;
        if (missing.size() < limit) {
          missing.add(firstId + k);
        }
      } else if (seen[k] > 1 && dups.size() < limit) {
        dups.put(firstId + k, seen[k]);
      }
    }
    return new Drill(missing, missingTotal, dups, strangers, "");
  }
}
