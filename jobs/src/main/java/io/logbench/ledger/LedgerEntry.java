package io.logbench.ledger;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one backend was sent and acknowledged in one window {@code [windowStartMillis,
 * windowEndMillis)}, with the window's expected line count: one row of the ledger. Rows are
 * upserts: the latest row of a (backend, window start) replaces the ones before it.
 *
 * @param backend backend name from the run file
 * @param windowStartMillis start of the window, epoch milliseconds (inclusive)
 * @param windowEndMillis end of the window, epoch milliseconds (exclusive)
 * @param expected lines of the run in the window (from the dataset and schedule, not a count)
 * @param sent lines of the window sent in batches that ended (acked, rejected or failed); lines of
 *     aborted batches were never sent and are only in {@code rejected}, as {@value #ABORTED}
 * @param acked lines the backend acknowledged
 * @param rejected lines not stored, by reason, sorted by reason
 */
public record LedgerEntry(
    String backend,
    long windowStartMillis,
    long windowEndMillis,
    long expected,
    long sent,
    long acked,
    Map<String, Long> rejected)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** The rejection reason of lines a load-test threshold kept from being sent. */
  public static final String ABORTED = "aborted";

  public LedgerEntry {
    Objects.requireNonNull(backend, "backend");
    // a sorted, mutable copy: deterministic output, and Flink's Kryo can rebuild it
    rejected = rejected == null ? new TreeMap<>() : new TreeMap<>(rejected);
  }

  /** A row with no batch counted yet. */
  public static LedgerEntry empty(String backend, long startMillis, long endMillis, long expected) {
    return new LedgerEntry(backend, startMillis, endMillis, expected, 0, 0, new TreeMap<>());
  }

  /** Lines rejected for any reason. */
  public long rejectedTotal() {
    long n = 0;
    for (long v : rejected.values()) {
      n += v;
    }
    return n;
  }

  /** Lines aborted before they were sent (a load-test threshold stopped the backend). */
  public long aborted() {
    return rejected.getOrDefault(ABORTED, 0L);
  }

  /** Lines of the window in batches that ended: sent, or aborted without being sent. */
  public long ended() {
    return sent + aborted();
  }

  /** This row with a batch's share of the window added. */
  public LedgerEntry plus(long sentLines, long ackedLines, Map<String, Long> rejectedLines) {
    TreeMap<String, Long> reasons = new TreeMap<>(rejected);
    rejectedLines.forEach((reason, n) -> reasons.merge(reason, n, Long::sum));
    return new LedgerEntry(
        backend, windowStartMillis, windowEndMillis, expected, sent + sentLines, acked + ackedLines, reasons);
  }

  /** The upsert key: backend and window start. */
  public Key key() {
    return new Key(backend, windowStartMillis);
  }

  /** A ledger row's identity, ordered by backend, then window start. */
  public record Key(String backend, long windowStartMillis) implements Comparable<Key>, Serializable {
    @Override
    public int compareTo(Key o) {
      int c = backend.compareTo(o.backend);
      return c != 0 ? c : Long.compare(windowStartMillis, o.windowStartMillis);
    }
  }
}
