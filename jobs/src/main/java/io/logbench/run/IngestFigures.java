package io.logbench.run;

import io.logbench.job.BackendSummary;
import io.logbench.job.GenerateJob;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.rundir.RunDir;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.Footprint;
import io.logbench.sink.RunContext;
import io.logbench.visibility.IngestRow;
import io.logbench.visibility.VisibilityReport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Each backend's ingest figures of a finished generate run ({@value IngestRow#FILE}): its
 * summary's first send and last answer, its visibility polls, and what it says it stores, read
 * after the run, beside the dataset's raw bytes per line.
 */
public final class IngestFigures {

  /** Lines whose bytes are measured for the raw bytes per line: enough for a steady mean, quickly made. */
  public static final long RAW_SAMPLE_LINES = 200_000;

  private IngestFigures() {}

  /**
   * The dataset's bytes per line as the seed's files hold them (the line and its newline), over
   * the run's first {@value #RAW_SAMPLE_LINES} lines (all of them in a shorter run).
   */
  public static double rawBytesPerLine(RunPlan plan) {
    long n = Math.min(plan.lines(), RAW_SAMPLE_LINES);
    if (n == 0) {
      return Double.NaN;
    }
    return (double) plan.dataset().byteSize(plan.firstIndex(), plan.firstIndex() + n) / n + 1;
  }

  /** One row per backend of {@code config}, in its order. */
  public static List<IngestRow> rows(RunConfig config, RunPlan plan, RunContext run, GenerateJob.Result result) {
    double raw = rawBytesPerLine(plan);
    List<IngestRow> rows = new ArrayList<>();
    for (BackendConfig b : config.backends()) {
      BackendSummary s = result.backends().stream().filter(x -> x.backend().equals(b.name())).findFirst()
          .orElse(null);
      List<String> notes = new ArrayList<>();
      Footprint footprint = null;
      try {
        footprint = b.spec().footprint(run).orElse(null);
        if (footprint == null) {
          notes.add("the " + b.spec().kind() + " backend reports no stored size");
        } else if (!footprint.complete()) {
          notes.add("its stored size is partial: " + footprint.source());
        }
      } catch (IOException | RuntimeException e) {
        notes.add("its stored size could not be read: " + e.getMessage());
      }
      VisibilityReport v = result.visibility().get(b.name());
      String skipped = result.visibilitySkipped().get(b.name());
      if (skipped != null) {
        notes.add("visibility not polled: " + skipped);
      }
      if (v != null && !v.lastLineNote().isEmpty()) {
        notes.add("last line not timed: " + v.lastLineNote());
      }
      long first = s == null || s.firstScheduledNanos() == Long.MAX_VALUE ? 0 : s.firstScheduledNanos();
      rows.add(new IngestRow(b.name(), b.spec().kind(), s == null ? 0 : s.acked(), first,
          s == null ? 0 : s.lastAnswerNanos(), v == null ? 0 : v.lastVisibleNanos(), footprint, raw, v,
          String.join("; ", notes)));
    }
    return rows;
  }

  /** Writes {@code rows} to {@code name} in the run directory, with {@link IngestRow#CSV_HEADER}. */
  public static void write(RunDir runDir, String name, List<IngestRow> rows) throws IOException {
    StringBuilder csv = new StringBuilder(IngestRow.CSV_HEADER).append('\n');
    rows.forEach(r -> csv.append(r.csv()).append('\n'));
    runDir.writeString(name, csv.toString());
  }
}
