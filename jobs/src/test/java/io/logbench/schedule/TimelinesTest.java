package io.logbench.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.dataset.Dataset;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TimelinesTest {

  private static final long START = 1_700_000_000_000L;
  private static final long RUN_START = 1_750_000_123_456L;

  private static final Dataset EVEN = ArrayDataset.of(3_000, i -> START + i * 7);
  private static final Dataset BURSTS =
      ArrayDataset.of(3_000, i -> START + (i / 50) * 1_000 + (i % 50 < 10 ? 0 : 999));

  @Test
  void originalKeepsTheDatasetTime() {
    ScheduledTimeline t = Timelines.of(TimestampMode.ORIGINAL, EVEN, 100, new UnpacedSchedule(50));

    assertThat(t.lineMillis(0, START + 700, RUN_START)).isEqualTo(START + 700);
    assertThat(t.countBefore(START + 700, RUN_START)).isZero();
    assertThat(t.countBefore(START + 701, RUN_START)).isEqualTo(1);
    assertThat(t.countBefore(Long.MAX_VALUE, RUN_START)).isEqualTo(50);
  }

  @Test
  void nowIsTheScheduledSendTime() {
    ScheduledTimeline t = Timelines.of(TimestampMode.NOW, EVEN, 0, new ConstantRateSchedule(3, 10));

    assertThat(t.lineMillis(0, 0, RUN_START)).isEqualTo(RUN_START);
    assertThat(t.lineMillis(1, 0, RUN_START)).isEqualTo(RUN_START + 333);
    assertThat(t.lineMillis(3, 0, RUN_START)).isEqualTo(RUN_START + 1000);
    assertThat(t.countBefore(RUN_START + 1000, RUN_START)).isEqualTo(3);
  }

  @Test
  void compressedMapsTheDatasetSpanOntoTheRun() {
    // 1000 lines 7 ms apart span 6993 ms + 1; at 1000 lines/s the run spans 1 s.
    ScheduledTimeline t =
        Timelines.of(TimestampMode.COMPRESSED, EVEN, 0, new ConstantRateSchedule(1000, 1000));

    assertThat(t.lineMillis(0, START, RUN_START)).isEqualTo(RUN_START);
    assertThat(t.lineMillis(999, START + 999 * 7, RUN_START)).isEqualTo(RUN_START + 999);
    assertThat(t.lineMillis(500, START + 500 * 7, RUN_START)).isEqualTo(RUN_START + 500);
  }

  @Test
  void bruteForceCountsEqualExpectedCountsInEveryMode() {
    List<Schedule> schedules =
        List.of(
            new ConstantRateSchedule(997, 2_500),
            new ConstantRateSchedule(0.5, 40),
            new LadderSchedule(List.of(300L, 1000L, 50L), Duration.ofMillis(700), Duration.ofMillis(900), 2_500),
            new ReplaySchedule(BURSTS, 100, 2_500, 13));
    SplittableRandom random = new SplittableRandom(42);
    for (Dataset dataset : List.of(EVEN, BURSTS)) {
      for (Schedule schedule : schedules) {
        for (TimestampMode mode : TimestampMode.values()) {
          long first = 100;
          ScheduledTimeline timeline = Timelines.of(mode, dataset, first, schedule);
          long[] ts = new long[(int) timeline.lines()];
          for (int r = 0; r < ts.length; r++) {
            ts[r] = timeline.lineMillis(r, dataset.timestampMillis(first + r), RUN_START);
            if (r > 0) {
              assertThat(ts[r]).as("%s %s non-decreasing at %d", mode, schedule, r)
                  .isGreaterThanOrEqualTo(ts[r - 1]);
            }
          }
          long lo = Math.min(ts[0], RUN_START) - 2_000;
          long hi = Math.max(ts[ts.length - 1], RUN_START) + 2_000;
          ExpectedCounts counts = new ExpectedCounts(timeline, RUN_START);
          for (int k = 0; k < 20; k++) {
            long from = lo + random.nextLong(hi - lo);
            long window = 1 + random.nextLong(Math.max(2, (hi - from) / 5));
            long to = from + random.nextLong(hi - from + 1);
            long[] perWindow = counts.perWindow(from, to, window);
            long total = 0;
            for (int w = 0; w < perWindow.length; w++) {
              long ws = from + w * window;
              long we = Math.min(to, ws + window);
              assertThat(perWindow[w]).as("%s %s [%d, %d)", mode, schedule, ws, we)
                  .isEqualTo(bruteForce(ts, ws, we));
              total += perWindow[w];
            }
            assertThat(total).isEqualTo(bruteForce(ts, from, to));
            assertThat(counts.count(from, to)).isEqualTo(total);
          }
          assertThat(counts.count(lo, hi)).isEqualTo(timeline.lines());
        }
      }
    }
  }

  @Test
  void nowAndCompressedNeedAPacedSchedule() {
    UnpacedSchedule unpaced = new UnpacedSchedule(10);
    assertThatThrownBy(() -> Timelines.of(TimestampMode.NOW, EVEN, 0, unpaced))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Timestamp mode 'now' needs a paced schedule, but UnpacedSchedule[lines=10] sends"
                + " lines as fast as the backend takes them, so they have no scheduled time;"
                + " use timestamps 'original' or a paced schedule.");
    assertThatThrownBy(() -> Timelines.of(TimestampMode.COMPRESSED, EVEN, 0, unpaced))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Timestamp mode 'compressed' needs a paced schedule");
  }

  @Test
  void runMustFitInTheDataset() {
    assertThatThrownBy(
            () -> Timelines.of(TimestampMode.ORIGINAL, EVEN, 2_990, new UnpacedSchedule(20)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A run of 20 lines from line 2990 does not fit in dataset array of 3000 lines.");
  }

  static long bruteForce(long[] ts, long from, long to) {
    long n = 0;
    for (long t : ts) {
      if (t >= from && t < to) {
        n++;
      }
    }
    return n;
  }
}
