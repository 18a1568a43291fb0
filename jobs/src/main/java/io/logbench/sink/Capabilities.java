package io.logbench.sink;

import java.io.Serializable;

/**
 * What a backend can do, declared once in its spec, so the jobs and the verifier ask it instead
 * of its type or kind name.
 *
 * @param countable it can count its lines back per window (a {@code CountReader})
 * @param lineIds where the ids its reader lists for a drill-down come from
 * @param orderedOutput it needs the batches in id order through one writer (its own {@code
 *     deliver} wiring does that)
 * @param runFilter every line it is sent carries the run's id and its reader counts only the lines
 *     of the run's id, so runs into the same index, labels or topic never mix (when the run has an
 *     id; without one, lines are not stamped and counts not filtered)
 */
public record Capabilities(boolean countable, LineIds lineIds, boolean orderedOutput, boolean runFilter)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Where the sequence ids a reader lists come from. */
  public enum LineIds {
    /** Full sequence ids (a {@code seq} field, a document id, a record key, a file position). */
    SEQUENCE,
    /**
     * {@code seq mod 999,999} from the line's nanosecond timestamp, unless the line itself
     * carries a {@code "seq"} field ({@code Dataset.linesCarrySeq}), which is then read instead.
     */
    NANOSECOND_OFFSET,
    /** The reader lists no ids. */
    NONE
  }

  /** Sends only: nothing to count back. */
  public static Capabilities sendOnly() {
    return new Capabilities(false, LineIds.NONE, false, false);
  }

  /** Counts back, listing ids from {@code ids}, in any order; counts are not filtered by run. */
  public static Capabilities countable(LineIds ids) {
    return new Capabilities(true, ids, false, false);
  }

  /** The same, with lines stamped with the run's id and counts filtered by it when {@code on}. */
  public Capabilities withRunFilter(boolean on) {
    return new Capabilities(countable, lineIds, orderedOutput, on);
  }
}
