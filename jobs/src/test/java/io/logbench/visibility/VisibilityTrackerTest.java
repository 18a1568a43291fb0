package io.logbench.visibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.logbench.count.CountReader;
import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.Capabilities;
import io.logbench.sink.RunContext;
import io.logbench.sink.VisibilitySettings;
import io.logbench.sink.WindowGrid;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The visibility polls' logic on a reader whose lines become countable when the test says. */
class VisibilityTrackerTest {

  /** 200,000 lines, one per millisecond from 1,000,000 ms. */
  private static final AppJsonDataset DATASET =
      AppJsonDataset.builder().lines(200_000).streams(2).startMillis(1_000_000).rate(1_000).build();
  private static final RunContext RUN = RunContext.of(DATASET, 0);
  private static final long MS = 1_000_000L;

  /** A reader holding the lines the test made visible; ids as the backend lists them. */
  private static final class Reader implements CountReader {
    final TreeMap<Long, Long> visible = new TreeMap<>(); // seq -> its time
    final boolean nanoIds;
    boolean scans;
    int failures;
    int idReads;
    int countReads;

    Reader(boolean nanoIds) {
      this.nanoIds = nanoIds;
    }

    void show(long from, long to) {
      for (long s = from; s < to; s++) {
        visible.put(s, DATASET.timestampMillis(s));
      }
    }

    @Override
    public long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException {
      countReads++;
      if (failures > 0) {
        failures--;
        throw new IOException("not now");
      }
      long[] c = new long[(int) ((toMillis - fromMillis) / windowMillis)];
      visible.values().forEach(t -> {
        if (t >= fromMillis && t < toMillis) {
          c[(int) ((t - fromMillis) / windowMillis)]++;
        }
      });
      return c;
    }

    @Override
    public List<Long> sequenceIds(long fromMillis, long toMillis, int limit) throws IOException {
      idReads++;
      if (failures > 0) {
        failures--;
        throw new IOException("not now");
      }
      List<Long> ids = new ArrayList<>();
      visible.forEach((s, t) -> {
        if (t >= fromMillis && t < toMillis && ids.size() < limit) {
          // a nanosecond offset id is seq mod 999,999: the same as seq below it, so shift it by one modulus
          ids.add(nanoIds ? s + 999_999L : s);
        }
      });
      return ids;
    }

    @Override
    public boolean scans() {
      return scans;
    }

    @Override
    public QueryStats stats() {
      return new QueryStats(0, 0);
    }

    @Override
    public void close() {}
  }

  private long now = 10_000 * MS;

  private VisibilityTracker tracker(Reader reader, VisibilitySettings settings) {
    return new VisibilityTracker("b", reader, RUN, reader.nanoIds ? Capabilities.LineIds.NANOSECOND_OFFSET
        : Capabilities.LineIds.SEQUENCE, settings, () -> now, new long[] {1_000_000, 1_001_000},
        new WindowGrid(0, 60_000));
  }

  /** Batch {@code n} of 100 lines, scheduled at {@code scheduled} ns and answered 20 ms later. */
  private static BatchOutcome batch(long n, long scheduled) {
    return new BatchOutcome("b", n, n * 100, 100, BatchOutcome.Status.ACKED, 200, 1, scheduled, 20 * MS, 20 * MS,
        List.of(new BatchOutcome.WindowTally(0, 100, 100, java.util.Map.of())));
  }

  @Test
  void aSampleIsVisibleWhenEveryLineIsCountedAndTimedFromItsAnswerAndSchedule() {
    Reader reader = new Reader(false);
    VisibilityTracker t = tracker(reader, new VisibilitySettings(2, Duration.ofMillis(100), Duration.ofSeconds(5)));
    // batches 0 and 2 are sampled, 1 and 3 not
    assertThat(t.offer(batch(0, now - 20 * MS))).isTrue();
    assertThat(t.offer(batch(1, now - 20 * MS))).isFalse();
    assertThat(t.offer(batch(2, now - 20 * MS))).isTrue();
    assertThat(t.offer(batch(3, now - 20 * MS))).isFalse();
    reader.show(0, 99); // one line of batch 0 missing yet
    t.poll();
    assertThat(t.report().visible()).isZero();
    assertThat(t.pendingSamples()).isEqualTo(2);

    now += 300 * MS;
    reader.show(99, 100);
    t.poll();
    VisibilityReport r = t.report();
    assertThat(r.visible()).isEqualTo(1);
    assertThat(r.fromAckMicros().max()).isEqualTo(300_000); // answered at the old now, found 300 ms later
    assertThat(r.fromScheduleMicros().max()).isEqualTo(320_000);

    now += 500 * MS;
    reader.show(200, 300);
    t.poll();
    r = t.report();
    assertThat(r.sampled()).isEqualTo(2);
    assertThat(r.visible()).isEqualTo(2);
    assertThat(r.fromAckMicros().count()).isEqualTo(2);
    // percentiles are the histogram's, within 1/64 of the value; the maximum is exact
    assertThat(r.fromAckMicros().percentile(50)).isCloseTo(300_000L, withinPercentage(1.6));
    assertThat(r.fromAckMicros().max()).isEqualTo(800_000);
    assertThat(r.ackedLines()).isEqualTo(400);
    assertThat(t.pendingSamples()).isZero();
  }

  @Test
  void idsFromNanosecondOffsetsAreMappedBackToTheBatch() {
    Reader reader = new Reader(true);
    VisibilityTracker t = tracker(reader, new VisibilitySettings(1, Duration.ofMillis(100), Duration.ofSeconds(5)));
    t.offer(batch(3, now));
    reader.show(300, 400);
    t.poll();
    assertThat(t.report().visible()).isEqualTo(1);
  }

  @Test
  void aSampleNeverSeenCountsAsNotVisibleAfterTheTimeoutAndFailedReadsKeepItPending() {
    Reader reader = new Reader(false);
    VisibilityTracker t = tracker(reader, new VisibilitySettings(1, Duration.ofMillis(100), Duration.ofSeconds(2)));
    long answered = now;
    t.offer(batch(0, answered - 20 * MS));
    reader.failures = 1;
    t.poll();
    assertThat(t.report().pollErrors()).isEqualTo(1);
    assertThat(t.pendingSamples()).isEqualTo(1);
    now = answered + 2_000 * MS; // not past the timeout yet
    t.poll();
    assertThat(t.report().notVisible()).isZero();
    now = answered + 2_001 * MS;
    t.poll();
    assertThat(t.report().notVisible()).isEqualTo(1);
    assertThat(t.report().visible()).isZero();
    assertThat(t.report().fromAckMicros().count()).isZero();
  }

  @Test
  void theEndCountTimesTheLastLineOnceEveryAckedLineIsCounted() throws Exception {
    Reader reader = new Reader(false);
    VisibilityTracker t = tracker(reader, new VisibilitySettings(100, Duration.ofMillis(100), Duration.ofSeconds(5)));
    for (int n = 0; n < 10; n++) {
      t.offer(batch(n, now));
    }
    reader.show(0, 999);
    t.endOfInput();
    t.poll(); // batch 0's sample is visible; the count finds 999 of 1,000
    assertThat(t.done()).isFalse();
    assertThat(t.report().visible()).isEqualTo(1);
    now += 250 * MS;
    reader.show(999, 1000);
    t.poll();
    assertThat(t.done()).isTrue();
    assertThat(t.awaitDone(0)).isTrue();
    assertThat(t.report().lastVisibleNanos()).isEqualTo(now);
    assertThat(t.report().lastLineNote()).isEmpty();
  }

  @Test
  void theEndCountGivesUpAfterTheTimeoutAndSaysHowFarItGot() {
    Reader reader = new Reader(false);
    VisibilityTracker t = tracker(reader, new VisibilitySettings(100, Duration.ofMillis(100), Duration.ofSeconds(1)));
    t.offer(batch(1, now)); // not sampled
    reader.show(100, 150);
    t.endOfInput();
    t.poll();
    assertThat(t.done()).isFalse();
    now += 1_001 * MS;
    t.poll();
    assertThat(t.done()).isTrue();
    assertThat(t.report().lastVisibleNanos()).isZero();
    assertThat(t.report().lastLineNote()).isEqualTo("the run's count did not reach the 100 acknowledged lines within"
        + " 1 s of the run's end (last count: 50)");
  }

  @Test
  void partialBatchesAreNotSampledAndABackendWithoutIdsIsRefused() {
    Reader reader = new Reader(false);
    VisibilityTracker t = tracker(reader, new VisibilitySettings(1, Duration.ofMillis(100), Duration.ofSeconds(1)));
    BatchOutcome partial = new BatchOutcome("b", 0, 0, 100, BatchOutcome.Status.PARTIAL, 200, 1, now, 0, 0,
        List.of(new BatchOutcome.WindowTally(0, 100, 90, java.util.Map.of("400", 10))));
    assertThat(t.offer(partial)).isFalse();
    assertThat(t.report().ackedLines()).isEqualTo(90);
    assertThatThrownBy(() -> new VisibilityTracker("b", reader, RUN, Capabilities.LineIds.NONE,
        VisibilitySettings.defaults(), () -> now, new long[] {0, 1}, new WindowGrid(0, 1000)))
        .hasMessage("Backend b lists no line ids: its visibility cannot be polled.");
  }

  @Test
  void nearbySamplesShareOneReadAndAScanningReaderReadsOnceARound() {
    for (boolean scans : new boolean[] {false, true}) {
      Reader reader = new Reader(false);
      reader.scans = scans;
      VisibilityTracker t = tracker(reader, new VisibilitySettings(1, Duration.ofMillis(100), Duration.ofSeconds(5)));
      t.offer(batch(0, now));
      t.offer(batch(1, now)); // 100 lines after batch 0: the same read
      t.offer(batch(1_000, now)); // 100,000 lines after: a read of its own, unless the reader scans anyway
      t.poll();
      assertThat(reader.idReads).as("scans: %s", scans).isEqualTo(scans ? 1 : 2);
      reader.show(0, 200);
      reader.show(100_000, 100_100);
      t.poll();
      assertThat(t.report().visible()).isEqualTo(3);
    }
  }
}
