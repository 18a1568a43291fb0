package io.logbench.cli;

import io.logbench.verify.BackendReport;
import io.logbench.verify.Verdict.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * verify's progress lines, one per backend: windows judged of the backend's, and how many have
 * each verdict other than OK so far.
 */
final class VerifyProgress implements Supplier<List<String>> {

  private final Map<String, Integer> windows;
  private final Supplier<List<BackendReport>> reports;
  private final LongSupplier clockMillis;
  private final long startMillis;

  /** {@code windows}: each backend's number of windows, by name, in the job's order. */
  VerifyProgress(Map<String, Integer> windows, Supplier<List<BackendReport>> reports,
      LongSupplier clockMillis) {
    this.windows = windows;
    this.reports = reports;
    this.clockMillis = clockMillis;
    this.startMillis = clockMillis.getAsLong();
  }

  @Override
  public List<String> get() {
    List<BackendReport> all = reports.get();
    String elapsed = Progress.duration(clockMillis.getAsLong() - startMillis);
    if (all.isEmpty()) {
      return List.of("verify: starting the job (" + elapsed + ")");
    }
    int width = all.stream().mapToInt(r -> r.backend().length()).max().orElse(8);
    List<String> out = new ArrayList<>();
    for (BackendReport r : all) {
      Map<Status, Integer> by = r.windowsByStatus();
      int judged = by.values().stream().mapToInt(Integer::intValue).sum();
      StringBuilder b = new StringBuilder(String.format(java.util.Locale.ROOT, "verify: %-" + width
          + "s %d/%d windows judged, OK %d", r.backend(), judged, windows.getOrDefault(r.backend(), 0),
          by.get(Status.OK)));
      for (Status s : Status.values()) {
        if (s != Status.OK && by.get(s) > 0) {
          b.append(", ").append(s).append(' ').append(by.get(s));
        }
      }
      b.append(r.finished() ? "; done" : "").append(" (").append(elapsed).append(')');
      out.add(b.toString());
    }
    return out;
  }
}
