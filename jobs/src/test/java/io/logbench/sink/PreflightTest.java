package io.logbench.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.count.CountReader;
import io.logbench.dataset.app.AppJsonStreams;
import java.io.IOException;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Preflight}: the run's windows, and how {@link Preflight#otherRuns} words what a
 * backend's reader finds, with a scripted reader that records what it was asked.
 */
class PreflightTest {

  private static final long MINUTE = 60_000L;
  private static final ZoneId SAO_PAULO = ZoneId.of("America/Sao_Paulo");
  private static final RunContext RUN = RunContext.of(new AppJsonStreams(2)).withRunId("run-b");

  /** A countable spec whose reader answers {@code counts} (or throws {@code failure}). */
  private static final class Scripted implements BackendSpec {
    private final boolean runFilter;
    private final long[] counts;
    private final IOException failure;
    final List<String> asked = new ArrayList<>();

    Scripted(boolean runFilter, long[] counts, IOException failure) {
      this.runFilter = runFilter;
      this.counts = counts;
      this.failure = failure;
    }

    @Override
    public String kind() {
      return "scripted";
    }

    @Override
    public String name() {
      return "s";
    }

    @Override
    public Capabilities capabilities() {
      return Capabilities.countable(Capabilities.LineIds.SEQUENCE).withRunFilter(runFilter);
    }

    @Override
    public BatchSender open(RunContext run) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CountReader openCounter(RunContext run) {
      asked.add("run " + run.runId());
      return new CountReader() {
        @Override
        public long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException {
          asked.add(fromMillis + ".." + toMillis + "/" + windowMillis);
          if (failure != null) {
            throw failure;
          }
          return counts;
        }

        @Override
        public List<Long> sequenceIds(long fromMillis, long toMillis, int limit) {
          return List.of();
        }

        @Override
        public QueryStats stats() {
          return new QueryStats(0, 0);
        }

        @Override
        public void close() {
          asked.add("closed");
        }
      };
    }
  }

  @Test
  void theWindowsAreTheGridsWindowsHoldingALineOfTheSpan() {
    long midnight = LocalDate.of(2021, 5, 1).atStartOfDay(SAO_PAULO).toInstant().toEpochMilli();
    Preflight p = Preflight.of(RUN, new long[] {midnight + 17_000, midnight + 3 * MINUTE + 1}, MINUTE, SAO_PAULO,
        midnight + 17_000, 0);
    assertThat(p.fromMillis()).isEqualTo(midnight);
    assertThat(p.toMillis()).isEqualTo(midnight + 4 * MINUTE);
    Preflight days = Preflight.of(RUN, new long[] {midnight + 17_000, midnight + 86_400_000L}, 86_400_000L,
        SAO_PAULO, 0, 0);
    assertThat(days.fromMillis()).as("a -03:00 midnight").isEqualTo(midnight);
    assertThat(days.toMillis()).isEqualTo(midnight + 86_400_000L);
    Preflight empty = Preflight.of(RUN, new long[] {midnight + 5, midnight + 5}, MINUTE, SAO_PAULO, 0, 0);
    assertThat(empty.toMillis()).isEqualTo(empty.fromMillis());
    assertThatThrownBy(() -> new Preflight(RUN, 0, 0, 90_000, MINUTE, ZoneOffset.UTC, 0))
        .hasMessage("Expected windows of a positive size tiling [from, to), got [0, 90000) with windows of 60000 ms.");
  }

  @Test
  void linesFoundAreCountedWithoutTheRunsFilterOverTheRunsWindows() {
    Scripted spec = new Scripted(true, new long[] {0, 12, 0, 1_000}, null);
    Preflight p = new Preflight(RUN, 0, 0, 4 * MINUTE, MINUTE, ZoneOffset.UTC, 0);
    assertThat(p.otherRuns(spec)).containsExactly("Backend 's' already holds 1,012 lines in the run's time range"
        + " from other runs; they are not counted as this run's (its lines carry run id run-b and its counts filter"
        + " by it).");
    assertThat(spec.asked).containsExactly("run null", "0..240000/60000", "closed");
    assertThat(p.otherRuns(spec, "And a note.")).singleElement().asString().endsWith("filter by it). And a note.");
  }

  @Test
  void aBackendThatDoesNotFilterByRunSaysTheLinesWillBeCounted() {
    Preflight p = new Preflight(RUN, 0, 0, MINUTE, MINUTE, ZoneOffset.UTC, 0);
    String will = "Backend 's' already holds 3 lines in the run's time range from other runs, and they WILL be"
        + " counted as this run's: this backend's counts are not filtered by run, so verify reports them as"
        + " DUPLICATE. Send the run to an empty index, topic or directory.";
    assertThat(p.otherRuns(new Scripted(false, new long[] {3}, null))).containsExactly(will);
    // a run without an id is not filtered either
    Preflight noId = new Preflight(RunContext.of(new AppJsonStreams(2)), 0, 0, MINUTE, MINUTE, ZoneOffset.UTC, 0);
    assertThat(noId.otherRuns(new Scripted(true, new long[] {3}, null))).containsExactly(will);
  }

  @Test
  void nothingFoundNothingAskedOrNoAnswerIsAWarningAtMost() {
    Preflight p = new Preflight(RUN, 0, 0, MINUTE, MINUTE, ZoneOffset.UTC, 0);
    assertThat(p.otherRuns(new Scripted(true, new long[] {0}, null))).isEmpty();
    Scripted never = new Scripted(true, new long[] {5}, null);
    assertThat(new Preflight(RUN, 0, 0, 0, MINUTE, ZoneOffset.UTC, 0).otherRuns(never)).isEmpty();
    assertThat(never.asked).as("no lines, no question").isEmpty();
    assertThat(p.otherRuns(new Scripted(true, null, new IOException("Loki did not answer."))))
        .containsExactly("Backend 's' could not be asked whether it already holds lines in the run's time range:"
            + " Loki did not answer.");
  }
}
