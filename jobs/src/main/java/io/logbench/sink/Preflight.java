package io.logbench.sink;

import io.logbench.count.CountReader;
import java.io.IOException;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What {@code generate} knows of a run before it sends anything, for each backend's checks
 * ({@link BackendSpec#preflight}): the run (the id its lines will carry, its streams and
 * dataset), its oldest line, and the windows its lines will fall in, so a backend can look for
 * lines that are already there ({@link #otherRuns}).
 *
 * @param run the run to be sent
 * @param oldestLineMillis timestamp of the run's oldest line
 * @param fromMillis start of the run's first window
 * @param toMillis end of the run's last window: {@code fromMillis} plus a whole number of windows
 * @param windowMillis the run's window size
 * @param zone the run's zone (its windows' days and the files backend's day files)
 * @param nowMillis when the checks run
 */
public record Preflight(
    RunContext run, long oldestLineMillis, long fromMillis, long toMillis, long windowMillis, ZoneId zone,
    long nowMillis) {

  public Preflight {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(zone, "zone");
    if (windowMillis <= 0 || toMillis < fromMillis || (toMillis - fromMillis) % windowMillis != 0) {
      throw new IllegalArgumentException("Expected windows of a positive size tiling [from, to), got ["
          + fromMillis + ", " + toMillis + ") with windows of " + windowMillis + " ms.");
    }
  }

  /**
   * The checks of {@code run}, whose lines span {@code [span[0], span[1])}: its windows are those
   * of {@code windowMillis} aligned to midnight in {@code zone} (as the ledger's and the
   * verifier's) that hold a line of the span.
   */
  public static Preflight of(RunContext run, long[] span, long windowMillis, ZoneId zone, long oldestLineMillis,
      long nowMillis) {
    WindowGrid grid = WindowGrid.aligned(windowMillis, zone, span[0]);
    long from = grid.windowStart(span[0]);
    long to = span[1] <= span[0] ? from : grid.windowStart(span[1] - 1) + windowMillis;
    return new Preflight(run, oldestLineMillis, from, to, windowMillis, zone, nowMillis);
  }

  /** {@link #otherRuns(BackendSpec, String)} with no note. */
  public List<String> otherRuns(BackendSpec spec) {
    return otherRuns(spec, "");
  }

  /**
   * A warning when {@code spec} already holds lines in the run's windows. Nothing of the run is
   * sent yet, so every line there is another run's: they are counted with the backend's own
   * reader without the run's filter (every run's lines of the run's streams). A backend whose
   * counts filter by run ({@link Capabilities#runFilter}) says they are not counted as this run's;
   * any other, that they will be. A backend that cannot be asked is a warning too, never a
   * failure: the run may still work once it answers.
   *
   * @param note a sentence added to the warning when there are such lines (or "")
   */
  public List<String> otherRuns(BackendSpec spec, String note) {
    if (toMillis == fromMillis) {
      return List.of();
    }
    long lines = 0;
    try (CountReader reader = spec.openCounter(run.withRunId(null))) {
      for (long n : reader.counts(fromMillis, toMillis, windowMillis)) {
        lines += n;
      }
    } catch (IOException | RuntimeException e) {
      return List.of("Backend '" + spec.name() + "' could not be asked whether it already holds lines in the"
          + " run's time range: " + e.getMessage());
    }
    if (lines == 0) {
      return List.of();
    }
    String held = "Backend '" + spec.name() + "' already holds " + String.format(Locale.ROOT, "%,d", lines)
        + " lines in the run's time range from other runs";
    String warning = spec.capabilities().runFilter() && run.runId() != null
        ? held + "; they are not counted as this run's (its lines carry run id " + run.runId()
            + " and its counts filter by it)."
        : held + ", and they WILL be counted as this run's: this backend's counts are not filtered by"
            + " run, so verify reports them as DUPLICATE. Send the run to an empty index, topic or"
            + " directory.";
    return List.of(note.isEmpty() ? warning : warning + " " + note);
  }
}
