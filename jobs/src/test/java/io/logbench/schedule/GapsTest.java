package io.logbench.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Gaps, SkippedBatches and expected counts with gaps: arithmetic only. */
class GapsTest {

  @Test
  void rangesAreSortedAndMergedAndEmptyOnesDropped() {
    Gaps g = Gaps.of(List.of(new long[] {50, 60}, new long[] {10, 20}, new long[] {20, 30}, new long[] {5, 5}));
    assertThat(g.ranges()).containsExactly(new long[] {10, 30}, new long[] {50, 60});
    assertThat(g.plus(25, 55).ranges()).containsExactly(new long[] {10, 60});
    assertThat(Gaps.of(List.of())).isEqualTo(Gaps.none());
  }

  @Test
  void linesBeforeContainsAndSkip() {
    Gaps g = Gaps.of(List.of(new long[] {10, 30}, new long[] {50, 60}));
    assertThat(g.linesBefore(10)).isZero();
    assertThat(g.linesBefore(15)).isEqualTo(5);
    assertThat(g.linesBefore(40)).isEqualTo(20);
    assertThat(g.linesBefore(100)).isEqualTo(30);
    assertThat(g.contains(9)).isFalse();
    assertThat(g.contains(10)).isTrue();
    assertThat(g.contains(29)).isTrue();
    assertThat(g.contains(30)).isFalse();
    assertThat(g.skip(12)).isEqualTo(30);
    assertThat(g.skip(30)).isEqualTo(30);
  }

  @Test
  void aRangeEndingBeforeItStartsIsRefused() {
    assertThatThrownBy(() -> Gaps.of(List.of(new long[] {5, 4})))
        .hasMessage("A gap is a range [from, to) of line indices from 0, from <= to, not [5, 4].");
  }

  @Test
  void skippedBatchesAreThoseWhoseFirstLineIsInAGap() {
    SkippedBatches s = new SkippedBatches(Gaps.of(List.of(new long[] {20, 50}, new long[] {60, 70})), 10);
    assertThat(s.next(1)).isEqualTo(1);
    assertThat(s.next(2)).isEqualTo(5);
    assertThat(s.next(4)).isEqualTo(5);
    assertThat(s.next(6)).isEqualTo(7);
    assertThat(SkippedBatches.none().next(42)).isEqualTo(42);
  }

  @Test
  void expectedCountsLeaveTheGapsOutButKeepTheIndices() {
    // 10 lines a second from t = 0, stamped with their scheduled time
    ConstantRateSchedule schedule = new ConstantRateSchedule(10, 100);
    Timeline t = Timelines.of(TimestampMode.NOW, new ArrayDataset(new long[100]), 0, schedule);
    ExpectedCounts e = new ExpectedCounts(t, 0).withGaps(Gaps.of(List.of(new long[] {15, 35})));
    assertThat(e.count(0, 1000)).isEqualTo(10);
    assertThat(e.count(1000, 2000)).isEqualTo(5);
    assertThat(e.count(2000, 3000)).isZero();
    assertThat(e.count(3000, 4000)).isEqualTo(5);
    assertThat(e.indexBefore(2000)).isEqualTo(20);
    assertThat(e.total()).isEqualTo(80);
  }
}
