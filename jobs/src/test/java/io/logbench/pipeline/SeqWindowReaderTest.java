package io.logbench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.count.CountReader.QueryStats;
import io.logbench.count.SeqCounter;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.schedule.Timeline;
import io.logbench.schedule.TimestampMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SeqWindowReaderTest {

  /** 10 lines a second from t = 1,000 ms: line i at 1,000 + 100 i. */
  static final Timeline TEN_A_SECOND = new Timeline() {
    @Override
    public TimestampMode mode() {
      return TimestampMode.NOW;
    }

    @Override
    public long lines() {
      return 35;
    }

    @Override
    public long lineMillis(long index, long datasetMillis, long runStartMillis) {
      return runStartMillis + 100 * index;
    }

    @Override
    public long countBefore(long epochMillis, long runStartMillis) {
      long n = Math.floorDiv(epochMillis - runStartMillis + 99, 100);
      return Math.max(0, Math.min(lines(), n));
    }
  };

  /** Answers each range's size less one, and remembers what it was asked. */
  static final class Fake implements SeqCounter {
    final List<long[]> bounds = new ArrayList<>();
    final List<long[]> ranges = new ArrayList<>();

    @Override
    public long[] counts(long[] b, long fromMillis, long toMillis) {
      bounds.add(b.clone());
      ranges.add(new long[] {fromMillis, toMillis});
      long[] out = new long[b.length - 1];
      for (int k = 0; k < out.length; k++) {
        out[k] = Math.max(0, b[k + 1] - b[k] - 1);
      }
      return out;
    }

    @Override
    public List<Long> sequenceIds(long firstId, long endId, long fromMillis, long toMillis, int limit) {
      ranges.add(new long[] {firstId, endId, fromMillis, toMillis, limit});
      return List.of(firstId);
    }

    @Override
    public QueryStats stats() {
      return new QueryStats(bounds.size(), 0);
    }

    @Override
    public void close() {}
  }

  @Test
  void windowsAreTheIdRangesOfTheirTimesSearchedFromLeadBeforeToLagAfter() throws Exception {
    Fake fake = new Fake();
    long now = 100_000;
    SeqWindowReader r = new SeqWindowReader(fake, new ExpectedCounts(TEN_A_SECOND, 1_000), 500,
        Duration.ofMillis(50), Duration.ofSeconds(10), () -> now);
    // windows [0, 1000) (no line), [1000, 2000) (ids 500..509), [2000, 3000), [3000, 4000) (ids 520..534: the end)
    assertThat(r.counts(0, 5_000, 1_000)).containsExactly(0, 9, 9, 9, 4);
    assertThat(fake.bounds.get(0)).containsExactly(500, 500, 510, 520, 530, 535);
    assertThat(fake.ranges.get(0)).containsExactly(-50, 15_000); // to + lag: before now
    assertThat(r.sequenceIds(2_000, 3_000, 7)).containsExactly(510L);
    assertThat(fake.ranges.get(1)).containsExactly(510, 520, 1_950, 13_000, 7);
  }

  @Test
  void theSearchStopsAtNowPlusLeadWhileTheWindowsAreFresh() throws Exception {
    Fake fake = new Fake();
    SeqWindowReader r = new SeqWindowReader(fake, new ExpectedCounts(TEN_A_SECOND, 1_000), 0, Duration.ofMillis(50),
        Duration.ofHours(1), () -> 4_000);
    r.counts(1_000, 3_000, 1_000);
    assertThat(fake.ranges.get(0)).containsExactly(950, 4_050);
    assertThat(r.counts(1_000, 1_000, 1_000)).isEmpty();
    assertThat(fake.bounds).hasSize(1); // no request for no window
  }

  @Test
  void aCanarysGapKeepsItsIdsSoTheWindowsAfterItAreTheTimelinesRanges() throws Exception {
    Fake fake = new Fake();
    // a canary down while lines 10..19 were due: they are never sent, and keep their ids
    ExpectedCounts withGap = new ExpectedCounts(TEN_A_SECOND, 1_000).withGaps(
        io.logbench.schedule.Gaps.of(List.of(new long[] {10, 20})));
    SeqWindowReader r = new SeqWindowReader(fake, withGap, 500, Duration.ofMillis(50), Duration.ofSeconds(10),
        () -> 100_000);
    r.counts(1_000, 5_000, 1_000);
    // by id, not by the count expected: [2000, 3000) is still ids 510..519 (none sent), [3000, 4000) 520..529
    assertThat(fake.bounds.get(0)).containsExactly(500, 510, 520, 530, 535);
    r.sequenceIds(3_000, 4_000, 7);
    assertThat(fake.ranges.get(1)[0]).isEqualTo(520);
    assertThat(fake.ranges.get(1)[1]).isEqualTo(530);
    assertThat(withGap.count(2_000, 3_000)).as("what the window expects").isZero();
  }
}
