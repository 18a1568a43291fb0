package io.logbench.visibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.logbench.count.VisibilityProbe;
import io.logbench.count.VisibilityProbe.Reach;
import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.RunContext;
import io.logbench.sink.VisibilitySettings;
import io.logbench.sink.WindowGrid;
import io.logbench.sink.discard.DiscardBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The visibility polls' logic, round by round, against a backend whose lines become countable when
 * the test says, counted as each probe {@link Reach} counts.
 */
class VisibilityTrackerTest {

  /** 200,000 lines, one per millisecond from 1,000,000 ms. */
  private static final AppJsonDataset DATASET =
      AppJsonDataset.builder().lines(200_000).streams(2).startMillis(1_000_000).rate(1_000).build();
  /** 2,000,000 lines, 100 per millisecond from 1,000,000 ms. */
  private static final AppJsonDataset DENSE =
      AppJsonDataset.builder().lines(2_000_000).streams(2).startMillis(1_000_000).rate(100_000).build();
  private static final long MS = 1_000_000L;

  /** The lines the backend holds, counted as a probe of {@code reach} counts them. */
  private static final class Backend {
    final TreeSet<Long> visible = new TreeSet<>();
    final RunContext run;
    final List<Integer> requests = new ArrayList<>(); // samples per request
    int failures;

    Backend(RunContext run) {
      this.run = run;
    }

    void show(long from, long to) {
      for (long s = from; s < to; s++) {
        visible.add(s);
      }
    }

    long[] count(Reach reach, List<VisibilityProbe.Sample> samples) {
      requests.add(samples.size());
      long[] c = new long[samples.size()];
      for (int k = 0; k < c.length; k++) {
        VisibilityProbe.Sample s = samples.get(k);
        for (long seq : visible) {
          long ms = run.lineMillis(seq);
          c[k] += reach == Reach.MILLISECONDS
              ? (ms >= s.fromMillis() && ms < s.toMillis() ? 1 : 0)
              : (seq >= s.firstSeq() && seq < s.firstSeq() + s.lines() ? 1 : 0);
        }
      }
      return c;
    }

    long total(long[] span) {
      return visible.stream().filter(s -> run.lineMillis(s) >= span[0] && run.lineMillis(s) < span[1]).count();
    }
  }

  private long now = 10_000 * MS;

  private VisibilityTracker tracker(Reach reach, RunContext run, VisibilitySettings settings) {
    return tracker(reach, 200, run, settings);
  }

  private VisibilityTracker tracker(Reach reach, int max, RunContext run, VisibilitySettings settings) {
    return new VisibilityTracker("b", reach, max, run, settings, () -> now, new long[] {1_000_000, 1_001_000},
        new WindowGrid(0, 60_000));
  }

  /** One round as the operator makes it, answered at once by {@code backend}. */
  private static void round(VisibilityTracker t, Reach reach, Backend backend) {
    VisibilityTracker.Round r = t.startRound();
    if (!r.samples().isEmpty()) {
      if (backend.failures > 0) {
        backend.failures--;
        t.samplesFailed(r);
      } else {
        t.samplesCounted(r, backend.count(reach, r.samples()));
      }
    }
    if (r.countRun()) {
      if (backend.failures > 0) {
        backend.failures--;
        t.runCountFailed();
      } else {
        t.runCounted(backend.total(t.runSpan()));
      }
    }
    t.finishRound();
  }

  /** Batch {@code n} of {@code lines} lines from {@code n * lines}, scheduled at {@code scheduled} ns and answered 20 ms later. */
  private static BatchOutcome batch(long n, int lines, long scheduled) {
    return new BatchOutcome("b", n, n * lines, lines, BatchOutcome.Status.ACKED, 200, 1, scheduled, 20 * MS, 20 * MS,
        List.of(new BatchOutcome.WindowTally(0, lines, lines, java.util.Map.of())));
  }

  private static BatchOutcome batch(long n, long scheduled) {
    return batch(n, 100, scheduled);
  }

  private static BatchOutcome failed(long n, int lines) {
    return new BatchOutcome("b", n, n * lines, lines, BatchOutcome.Status.FAILED, 503, 1, 0, 20 * MS, 20 * MS,
        List.of(new BatchOutcome.WindowTally(0, lines, 0, java.util.Map.of("503", lines))));
  }

  @Test
  void aSampleIsVisibleWhenEveryLineIsCountedAndTimedFromItsAnswerAndSchedule() {
    RunContext run = RunContext.of(DATASET, 0);
    Backend backend = new Backend(run);
    VisibilityTracker t = tracker(Reach.LINES, run, new VisibilitySettings(2, Duration.ofMillis(100), Duration.ofSeconds(5)));
    // batches 0 and 2 are sampled, 1 and 3 not
    assertThat(t.offer(batch(0, now - 20 * MS))).isTrue();
    assertThat(t.offer(batch(1, now - 20 * MS))).isFalse();
    assertThat(t.offer(batch(2, now - 20 * MS))).isTrue();
    assertThat(t.offer(batch(3, now - 20 * MS))).isFalse();
    backend.show(0, 99); // one line of batch 0 missing yet
    round(t, Reach.LINES, backend);
    assertThat(t.report().visible()).isZero();
    assertThat(t.pendingSamples()).isEqualTo(2);

    now += 300 * MS;
    backend.show(99, 100);
    round(t, Reach.LINES, backend);
    VisibilityReport r = t.report();
    assertThat(r.visible()).isEqualTo(1);
    assertThat(r.fromAckMicros().max()).isEqualTo(300_000); // answered at the old now, found 300 ms later
    assertThat(r.fromScheduleMicros().max()).isEqualTo(320_000);

    now += 500 * MS;
    backend.show(200, 300);
    round(t, Reach.LINES, backend);
    r = t.report();
    assertThat(r.sampled()).isEqualTo(2);
    assertThat(r.visible()).isEqualTo(2);
    assertThat(r.fromAckMicros().count()).isEqualTo(2);
    // percentiles are the histogram's, within 1/64 of the value; the maximum is exact
    assertThat(r.fromAckMicros().percentile(50)).isCloseTo(300_000L, withinPercentage(1.6));
    assertThat(r.fromAckMicros().max()).isEqualTo(800_000);
    assertThat(r.ackedLines()).isEqualTo(400);
    assertThat(r.polls()).isEqualTo(3);
    assertThat(t.pendingSamples()).isZero();
  }

  @Test
  void everyPendingSampleIsCountedInOneRequestARoundTheOldestFirstUpToTheProbesMost() {
    RunContext run = RunContext.of(DATASET, 0);
    Backend backend = new Backend(run);
    VisibilityTracker t = tracker(Reach.LINES, 3, run, new VisibilitySettings(1, Duration.ofMillis(100), Duration.ofSeconds(5)));
    for (int n : new int[] {0, 1, 1_000, 1_500, 1_900}) {
      t.offer(batch(n, now)); // far apart or close: the same request
    }
    round(t, Reach.LINES, backend);
    assertThat(backend.requests).containsExactly(3);
    backend.show(0, 200_000);
    round(t, Reach.LINES, backend);
    round(t, Reach.LINES, backend);
    // the first three were seen in the second round, the last two in the third
    assertThat(backend.requests).containsExactly(3, 3, 2);
    assertThat(t.report().visible()).isEqualTo(5);
    assertThat(t.report().polls()).isEqualTo(3);
    round(t, Reach.LINES, backend);
    assertThat(backend.requests).as("no pending sample, no request").hasSize(3);
  }

  @Test
  void aSampleNeverSeenCountsAsNotVisibleAfterTheTimeoutAndFailedReadsKeepItPending() {
    RunContext run = RunContext.of(DATASET, 0);
    Backend backend = new Backend(run);
    VisibilityTracker t = tracker(Reach.LINES, run, new VisibilitySettings(1, Duration.ofMillis(100), Duration.ofSeconds(2)));
    long answered = now;
    t.offer(batch(0, answered - 20 * MS));
    backend.failures = 1;
    round(t, Reach.LINES, backend);
    assertThat(t.report().pollErrors()).isEqualTo(1);
    assertThat(t.pendingSamples()).isEqualTo(1);
    now = answered + 2_000 * MS; // not past the timeout yet
    round(t, Reach.LINES, backend);
    assertThat(t.report().notVisible()).isZero();
    now = answered + 2_001 * MS;
    round(t, Reach.LINES, backend);
    assertThat(t.report().notVisible()).isEqualTo(1);
    assertThat(t.report().visible()).isZero();
    assertThat(t.report().fromAckMicros().count()).isZero();
  }

  @Test
  void theEndCountTimesTheLastLineOnceEveryAckedLineIsCounted() {
    RunContext run = RunContext.of(DATASET, 0);
    Backend backend = new Backend(run);
    VisibilityTracker t = tracker(Reach.LINES, run, new VisibilitySettings(100, Duration.ofMillis(100), Duration.ofSeconds(5)));
    for (int n = 0; n < 10; n++) {
      t.offer(batch(n, now));
    }
    backend.show(0, 999);
    t.endOfInput();
    round(t, Reach.LINES, backend); // batch 0's sample is visible; the count finds 999 of 1,000
    assertThat(t.done()).isFalse();
    assertThat(t.report().visible()).isEqualTo(1);
    now += 250 * MS;
    backend.show(999, 1000);
    round(t, Reach.LINES, backend);
    assertThat(t.done()).isTrue();
    assertThat(t.report().lastVisibleNanos()).isEqualTo(now);
    assertThat(t.report().lastLineNote()).isEmpty();
    assertThat(t.startRound().countRun()).as("done: nothing more to count").isFalse();
  }

  @Test
  void theEndCountGivesUpAfterTheTimeoutAndSaysHowFarItGot() {
    RunContext run = RunContext.of(DATASET, 0);
    Backend backend = new Backend(run);
    VisibilityTracker t = tracker(Reach.LINES, run, new VisibilitySettings(100, Duration.ofMillis(100), Duration.ofSeconds(1)));
    t.offer(batch(1, now)); // not sampled
    backend.show(100, 150);
    t.endOfInput();
    round(t, Reach.LINES, backend);
    assertThat(t.done()).isFalse();
    now += 1_001 * MS;
    round(t, Reach.LINES, backend);
    assertThat(t.done()).isTrue();
    assertThat(t.report().lastVisibleNanos()).isZero();
    assertThat(t.report().lastLineNote()).isEqualTo("the run's count did not reach the 100 acknowledged lines within"
        + " 1 s of the run's end (last count: 50)");
  }

  @Test
  void partialBatchesAreNotSampledAndABackendWithoutIdsIsNotPolled() {
    RunContext run = RunContext.of(DATASET, 0);
    VisibilityTracker t = tracker(Reach.LINES, run, new VisibilitySettings(1, Duration.ofMillis(100), Duration.ofSeconds(1)));
    BatchOutcome partial = new BatchOutcome("b", 0, 0, 100, BatchOutcome.Status.PARTIAL, 200, 1, now, 0, 0,
        List.of(new BatchOutcome.WindowTally(0, 100, 90, java.util.Map.of("400", 10))));
    assertThat(t.offer(partial)).isFalse();
    assertThat(t.report().ackedLines()).isEqualTo(90);
    assertThat(Visibility.skipReason(new DiscardBackend("nothing"), VisibilitySettings.defaults()))
        .isEqualTo("the discard backend cannot count its lines back");
    assertThatThrownBy(() -> tracker(Reach.LINES, 0, run, VisibilitySettings.defaults()))
        .hasMessage("A probe of backend b must take at least one sample a request, not 0.");
  }

  @Test
  void aMillisecondProbesSampleWaitsForItsNeighboursLinesInItsMillisecondsButNotForLinesThatFailed() {
    RunContext run = RunContext.of(DENSE, 0);
    Backend backend = new Backend(run);
    // 70-line batches on 100 lines a millisecond: batch 10 is seqs 700..769, in the millisecond of 700..799
    VisibilityTracker t = tracker(Reach.MILLISECONDS, run, new VisibilitySettings(10, Duration.ofMillis(100), Duration.ofSeconds(5)));
    assertThat(t.offer(batch(10, 70, now))).isTrue();
    backend.show(700, 770);
    round(t, Reach.MILLISECONDS, backend);
    assertThat(t.report().visible()).as("batch 11's first 30 lines share the millisecond").isZero();
    backend.show(770, 790);
    round(t, Reach.MILLISECONDS, backend);
    assertThat(t.report().visible()).isZero();
    // batch 11 (770..839) failed: its lines will never be there, and the sample no longer waits for them
    t.offer(failed(11, 70));
    round(t, Reach.MILLISECONDS, backend);
    assertThat(t.report().visible()).isEqualTo(1);

    // a failure known before the sample counts too: batch 20 (1400..1469) failed, 21 (1470..1539) sampled
    t = tracker(Reach.MILLISECONDS, run, new VisibilitySettings(21, Duration.ofMillis(100), Duration.ofSeconds(5)));
    t.offer(failed(20, 70));
    assertThat(t.offer(batch(21, 70, now))).isTrue();
    backend.show(1_470, 1_600);
    round(t, Reach.MILLISECONDS, backend);
    assertThat(t.report().visible()).isEqualTo(1);
  }

  @Test
  void aNanosecondProbeSamplesNoBatchWhoseIntervalAnotherLineCouldShare() {
    RunContext run = RunContext.of(DENSE, 0);
    VisibilityTracker t = tracker(Reach.NANOSECONDS, run, new VisibilitySettings(1, Duration.ofMillis(100), Duration.ofSeconds(5)));
    // the millisecond of seqs 999,900..999,999 wraps from offset 999,998 to 0 at seq 999,999
    assertThat(t.offer(batch(9_998, now))).as("the batch before that millisecond").isTrue();
    assertThat(t.offer(batch(9_999, now))).as("the batch in it").isFalse();
    assertThat(t.offer(batch(10_000, now))).as("the batch after it").isTrue();
    assertThat(VisibilityTracker.nanosecondsAlone(run, 999_950, 1_000_049)).isFalse();
    assertThat(VisibilityTracker.nanosecondsAlone(run, 999_990, 999_997)).as("shares its millisecond with the wrap")
        .isFalse();
    assertThat(VisibilityTracker.nanosecondsAlone(run, 0, 99)).isTrue();
    assertThat(VisibilityTracker.nanosecondsAlone(run, 1_999_900, 1_999_999)).as("wraps at 1,999,998").isFalse();
    AppJsonDataset shorter =
        AppJsonDataset.builder().lines(1_500_000).streams(2).startMillis(1_000_000).rate(100_000).build();
    assertThat(VisibilityTracker.nanosecondsAlone(RunContext.of(shorter, 0), 1_499_900, 1_499_999))
        .as("the run's last lines: no line after them").isTrue();
    assertThat(t.report().sampled()).isEqualTo(2);
    // a line a millisecond: a wrap sits between two milliseconds and shares no interval
    AppJsonDataset sparse =
        AppJsonDataset.builder().lines(2_000_000).streams(2).startMillis(1_000_000).rate(1_000).build();
    assertThat(VisibilityTracker.nanosecondsAlone(RunContext.of(sparse, 0), 999_950, 1_000_049)).isTrue();
  }
}
