package io.logbench.report;

import io.logbench.ledger.LedgerEntry;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One backend's windows with the ledger's and the verifier's numbers side by side: expected and
 * acked from the ledger (or the verdict when the ledger has no row), observed and status from
 * {@code verdicts.csv}. A status the report does not know (one added after it) is kept as it is.
 */
final class BackendWindows {

  /** The statuses the report knows, in the order it lists them; others follow, as found. */
  static final List<String> KNOWN_STATUSES =
      List.of("OK", "MISSING", "DUPLICATE", "REPLAYED", "REJECTED", "PENDING");

  /**
   * One window.
   *
   * @param observed null when not verified or the backend did not answer
   * @param status null when not verified
   */
  record Window(long startMillis, long expected, Long acked, Long observed, String status) {

    /** Acknowledged lines the backend does not hold (a MISSING window), else 0. */
    long lost() {
      return "MISSING".equals(status) && acked != null && observed != null ? acked - observed : 0;
    }

    /** Lines held beyond the acknowledged (a DUPLICATE window), else 0; as {@code Verdict}. */
    long duplicated() {
      if (!"DUPLICATE".equals(status) || observed == null) {
        return 0;
      }
      return Math.max(observed - (acked == null ? 0 : acked), observed - expected);
    }

    /** Copies logbench itself sent again after a restore (a REPLAYED window), else 0. */
    long replayed() {
      return "REPLAYED".equals(status) && observed != null ? observed - (acked == null ? 0 : acked) : 0;
    }

    /** Lines of the window the backend never acknowledged. */
    long notAcked() {
      return acked == null ? 0 : Math.max(0, expected - acked);
    }
  }

  private final String backend;
  private final List<Window> windows;

  private BackendWindows(String backend, List<Window> windows) {
    this.backend = backend;
    this.windows = List.copyOf(windows);
  }

  /** Every backend's windows, by backend in {@code backends} order. */
  static Map<String, BackendWindows> of(RunData data) {
    Map<String, TreeMap<Long, LedgerEntry>> ledger = new LinkedHashMap<>();
    data.ledger().forEach(e -> ledger.computeIfAbsent(e.backend(), b -> new TreeMap<>())
        .put(e.windowStartMillis(), e));
    Map<String, TreeMap<Long, List<String>>> verdicts = new LinkedHashMap<>();
    CsvTable v = data.verdicts();
    if (v != null) {
      for (List<String> row : v.rows()) {
        Long start = millis(v.get(row, "window_start"));
        if (start != null) {
          verdicts.computeIfAbsent(v.get(row, "backend"), b -> new TreeMap<>()).put(start, row);
        }
      }
    }
    Map<String, BackendWindows> out = new LinkedHashMap<>();
    for (String b : data.backends()) {
      TreeMap<Long, LedgerEntry> l = ledger.getOrDefault(b, new TreeMap<>());
      TreeMap<Long, List<String>> vs = verdicts.getOrDefault(b, new TreeMap<>());
      TreeMap<Long, Boolean> starts = new TreeMap<>();
      l.keySet().forEach(s -> starts.put(s, true));
      vs.keySet().forEach(s -> starts.put(s, true));
      List<Window> rows = new ArrayList<>();
      for (long s : starts.keySet()) {
        LedgerEntry e = l.get(s);
        List<String> row = vs.get(s);
        long expected = e != null ? e.expected() : asLong(v.number(row, "expected"), 0L);
        Long acked = e != null ? Long.valueOf(e.acked()) : asLong(row == null ? null : v.number(row, "acked"), null);
        Long observed = row == null ? null : asLong(v.number(row, "observed"), null);
        if (observed != null && observed < 0) {
          observed = null; // -1: the backend never answered
        }
        rows.add(new Window(s, expected, acked, observed, row == null ? null : v.get(row, "status")));
      }
      if (!rows.isEmpty()) {
        out.put(b, new BackendWindows(b, rows));
      }
    }
    return out;
  }

  String backend() {
    return backend;
  }

  List<Window> windows() {
    return windows;
  }

  /** Windows by status, known statuses first (with zeros), then the others in order found. */
  Map<String, Long> byStatus() {
    Map<String, Long> out = new LinkedHashMap<>();
    KNOWN_STATUSES.forEach(s -> out.put(s, 0L));
    windows.stream().filter(w -> w.status() != null).forEach(w -> out.merge(w.status(), 1L, Long::sum));
    return out;
  }

  long verifiedWindows() {
    return windows.stream().filter(w -> w.status() != null).count();
  }

  long lost() {
    return windows.stream().mapToLong(Window::lost).sum();
  }

  long duplicated() {
    return windows.stream().mapToLong(Window::duplicated).sum();
  }

  long replayed() {
    return windows.stream().mapToLong(Window::replayed).sum();
  }

  long notAcked() {
    return windows.stream().mapToLong(Window::notAcked).sum();
  }

  long expected() {
    return windows.stream().mapToLong(Window::expected).sum();
  }

  static Long millis(String iso) {
    try {
      return OffsetDateTime.parse(iso).toInstant().toEpochMilli();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static Long asLong(Double d, Long fallback) {
    return d == null ? fallback : Long.valueOf(Math.round(d));
  }
}
