package io.logbench.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Which lines a replayed range holds, checked against the batches it stands for, listed by hand. */
class ReplayedRangeTest {

  /** Sequence ids of batches {@code ids} of 10 lines from sequence id 1000, cut at {@code end}. */
  private static List<Long> seqsOf(long end, long... ids) {
    List<Long> out = new ArrayList<>();
    for (long b : ids) {
      LongStream.range(1000 + b * 10, Math.min(1000 + b * 10 + 10, end)).forEach(out::add);
    }
    return out;
  }

  @Test
  void aStripeRangeHoldsEveryStripesBatchFromItsPositionToItsLease() {
    // 3 stripes, batches of 10 lines, run of 95 lines from seq 1000: batches 0..9, the last of 5
    ReplayedRange r = ReplayedRange.stripe(1, 7, 3, 10, 1000, 95);
    assertThat(r.batches()).isEqualTo(3); // 1, 4, 7
    List<Long> expected = seqsOf(1095, 1, 4, 7);
    List<Long> held = LongStream.range(990, 1100).filter(r::contains).boxed().toList();
    assertThat(held).isEqualTo(expected);
    assertThat(r.lines()).isEqualTo(30);
    assertThat(r.linesIn(1015, 1045)).isEqualTo(5 + 5); // 1015-1019 and 1040-1044
    assertThat(r.boundsIn(1015, 1045)).containsExactly(1015L, 1044L);
    assertThat(r.boundsIn(1020, 1040)).isNull();
  }

  @Test
  void aLeaseBeyondTheRunStopsAtTheStripesLastBatchWhichMayBeShort() {
    ReplayedRange r = ReplayedRange.stripe(3, 30, 3, 10, 1000, 95);
    assertThat(r.lastBatch()).isEqualTo(9);
    assertThat(r.lines()).isEqualTo(10 + 10 + 5); // 3, 6 and the short 9
    assertThat(LongStream.range(990, 1200).filter(r::contains).boxed().toList())
        .isEqualTo(seqsOf(1095, 3, 6, 9));
  }

  @Test
  void aLeaseBelowThePositionLeavesNothing() {
    assertThat(ReplayedRange.stripe(7, 4, 3, 10, 1000, 95)).isNull();
    assertThat(ReplayedRange.stripe(7, 8, 3, 10, 1000, 95).batches()).isEqualTo(1);
  }

  @Test
  void oneBatch() {
    ReplayedRange r = ReplayedRange.batch(12, 5_000, 100);
    assertThat(r.batches()).isEqualTo(1);
    assertThat(r.lines()).isEqualTo(100);
    assertThat(r.contains(4_999)).isFalse();
    assertThat(r.contains(5_000)).isTrue();
    assertThat(r.contains(5_099)).isTrue();
    assertThat(r.contains(5_100)).isFalse();
    assertThat(r.linesIn(5_050, 6_000)).isEqualTo(50);
  }

  @Test
  void aRangeOffItsStepIsRefused() {
    assertThatThrownBy(() -> new ReplayedRange(1, 6, 3, 1010, 30, 10, 2000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batches 1..6 step 3");
  }
}
