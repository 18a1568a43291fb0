package io.logbench.verify;

import io.logbench.count.LineIds;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongPredicate;

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
 * @param replayed ids found more than once that a restore sent again, with how often they were
 *     found, ascending, at most the limit (empty without restore records: they are then among the
 *     duplicates)
 * @param duplicateCopies extra copies (found minus one) of all the duplicates, listed or not
 * @param replayedCopies extra copies of all the replayed ids, listed or not
 * @param strangersFound every id found outside the range, repeats counted
 */
public record Drill(List<Long> missing, long missingTotal, Map<Long, Integer> duplicates, List<Long> strangers,
    String note, Map<Long, Integer> replayed, long duplicateCopies, long replayedCopies, long strangersFound)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  public Drill {
    missing = List.copyOf(missing);
    duplicates = new TreeMap<>(duplicates);
    strangers = List.copyOf(strangers);
    note = note == null ? "" : note;
    replayed = new TreeMap<>(replayed);
  }

  /** A drill-down without restore records and totals (tests, tools). */
  public Drill(List<Long> missing, long missingTotal, Map<Long, Integer> duplicates, List<Long> strangers,
      String note) {
    this(missing, missingTotal, duplicates, strangers, note, Map.of(),
        duplicates.values().stream().mapToLong(n -> n - 1).sum(), 0, strangers.size());
  }

  /** A drill-down that could not be made, and why. */
  public static Drill impossible(String why) {
    return new Drill(List.of(), 0, Map.of(), List.of(), why);
  }

  /** The drill-down was made in full (its totals are exact). */
  public boolean complete() {
    return note.isEmpty();
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
    return of(firstId, lastExclusive, observed, fromNanosOffsets, limit, null);
  }

  /**
   * {@link #of(long, long, List, boolean, int)}, telling apart the ids found more than once that a
   * restore sent again ({@code replayedId}, or null for none) from the other duplicates.
   */
  public static Drill of(long firstId, long lastExclusive, List<Long> observed, boolean fromNanosOffsets, int limit,
      LongPredicate replayedId) {
    return of(firstId, lastExclusive, observed, fromNanosOffsets, limit, replayedId, null);
  }

  /**
   * {@link #of(long, long, List, boolean, int, LongPredicate)}, with the ids of the range that were
   * never sent ({@code unsent}, e.g. a canary's gap while it was down; null for none) not
   * missing when they are not found.
   */
  public static Drill of(long firstId, long lastExclusive, List<Long> observed, boolean fromNanosOffsets, int limit,
      LongPredicate replayedId, LongPredicate unsent) {
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
    Map<Long, Integer> replayed = new TreeMap<>();
    long dupCopies = 0;
    long replayedCopies = 0;
    long strangersFound = 0;
    List<Long> strangers = new ArrayList<>();
    Map<Long, Integer> strangerCounts = new HashMap<>();
    for (long raw : observed) {
      long id = raw;
      if (fromNanosOffsets && raw >= 0) {
        id = firstId + Math.floorMod(raw - firstId, LineIds.MODULUS);
      }
      if (id < firstId || id >= lastExclusive) {
        strangersFound++;
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
        if (unsent != null && unsent.test(firstId + k)) {
          continue;
        }
        missingTotal++;
        if (missing.size() < limit) {
          missing.add(firstId + k);
        }
      } else if (seen[k] > 1) {
        long id = firstId + k;
        if (replayedId != null && replayedId.test(id)) {
          replayedCopies += seen[k] - 1;
          if (replayed.size() < limit) {
            replayed.put(id, seen[k]);
          }
        } else {
          dupCopies += seen[k] - 1;
          if (dups.size() < limit) {
            dups.put(id, seen[k]);
          }
        }
      }
    }
    return new Drill(missing, missingTotal, dups, strangers, "", replayed, dupCopies, replayedCopies,
        strangersFound);
  }
}
