package io.logbench.verify;

import io.logbench.count.CountReader.QueryStats;
import io.logbench.verify.Verdict.Status;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One backend's verification, collected at the client: the last verdict of each window (a window
 * checked again after a failover keeps its latest), drill-downs, and the reader's query stats.
 */
public final class BackendReport {

  private final String backend;
  private final TreeMap<Long, BackendChecker.Result> windows = new TreeMap<>();
  private QueryStats stats = new QueryStats(0, 0);
  private boolean finished;
  private String skipped;

  public BackendReport(String backend) {
    this.backend = backend;
  }

  /** A backend not checked, and why (e.g. it cannot count back). */
  public static BackendReport skipped(String backend, String why) {
    BackendReport r = new BackendReport(backend);
    r.skipped = why;
    r.finished = true;
    return r;
  }

  public synchronized void add(VerifyEvent e) {
    if (e.result() != null) {
      windows.put(e.result().verdict().windowStartMillis(), e.result());
    }
    if (e.stats() != null) {
      stats = e.stats();
    }
    finished |= e.last();
  }

  public String backend() {
    return backend;
  }

  /** Why the backend was not checked, or null. */
  public String skippedReason() {
    return skipped;
  }

  /** The check ended with every window judged. */
  public synchronized boolean finished() {
    return finished;
  }

  public synchronized List<BackendChecker.Result> results() {
    return new ArrayList<>(windows.values());
  }

  public synchronized List<Verdict> verdicts() {
    return windows.values().stream().map(BackendChecker.Result::verdict).toList();
  }

  public synchronized QueryStats stats() {
    return stats;
  }

  public synchronized Map<Status, Integer> windowsByStatus() {
    Map<Status, Integer> out = new EnumMap<>(Status.class);
    for (Status s : Status.values()) {
      out.put(s, 0);
    }
    windows.values().forEach(r -> out.merge(r.verdict().status(), 1, Integer::sum));
    return out;
  }

  public synchronized long missingLines() {
    return windows.values().stream().mapToLong(r -> r.verdict().missingLines()).sum();
  }

  public synchronized long duplicateLines() {
    return windows.values().stream().mapToLong(r -> r.verdict().duplicateLines()).sum();
  }

  /** Extra copies of lines sent again after a restore, over REPLAYED windows. */
  public synchronized long replayedLines() {
    return windows.values().stream().mapToLong(r -> r.verdict().replayedLines()).sum();
  }

  /** Lines the ledger says were not acknowledged, over REJECTED windows and the others. */
  public synchronized long rejectedLines() {
    return windows.values().stream().mapToLong(r -> r.verdict().unackedLines()).sum();
  }

  /** Rejection reasons summed over all windows. */
  public synchronized Map<String, Long> rejectedReasons() {
    Map<String, Long> out = new TreeMap<>();
    windows.values().forEach(r -> r.verdict().rejected().forEach((k, v) -> out.merge(k, v, Long::sum)));
    return out;
  }
}
