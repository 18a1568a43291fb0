package io.logbench.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class ExpectedCountsTest {

  // 2021-05-01T00:00:00Z, and one line every 7 s for a day.
  private static final long MAY1 = 1_619_827_200_000L;
  private static final ArrayDataset DAY = ArrayDataset.of(12_343, i -> MAY1 + i * 7_000);

  private final ExpectedCounts counts =
      new ExpectedCounts(
          Timelines.of(TimestampMode.ORIGINAL, DAY, 0, new UnpacedSchedule(DAY.size())), 0);

  @Test
  void perWindowCutsTheLastWindowAtTheEnd() {
    long[] perWindow = counts.perWindow(MAY1, MAY1 + 70_000, 30_000);

    assertThat(perWindow).containsExactly(5, 4, 1);
    assertThat(counts.windows(MAY1, MAY1 + 70_000, 30_000).windows().get(2))
        .isEqualTo(new WindowCount(MAY1 + 60_000, MAY1 + 70_000, 1));
    assertThat(counts.perWindow(MAY1, MAY1, 30_000)).isEmpty();
  }

  @Test
  void epochAlignedHoursCoverTheRange() {
    WindowCounts hours = counts.alignedToEpoch(MAY1 + 1_800_000, MAY1 + 7_300_000, 3_600_000);

    assertThat(hours.windows()).extracting(WindowCount::startMillis)
        .containsExactly(MAY1, MAY1 + 3_600_000, MAY1 + 7_200_000);
    assertThat(hours.windows()).extracting(WindowCount::count)
        .containsExactly(515L, 514L, 514L);
    assertThat(hours.total()).isEqualTo(515 + 514 + 514);
  }

  @Test
  void zoneAlignedDaysStartAtLocalMidnight() {
    ZoneId berlin = ZoneId.of("Europe/Berlin");
    WindowCounts days = counts.aligned(MAY1, MAY1 + 86_400_000, 86_400_000, berlin);
    long berlinMay1 = ZonedDateTime.of(2021, 5, 1, 0, 0, 0, 0, berlin).toInstant().toEpochMilli();

    assertThat(days.windows()).extracting(WindowCount::startMillis)
        .containsExactly(berlinMay1, berlinMay1 + 86_400_000);
    assertThat(days.total()).isEqualTo(DAY.size());
    assertThat(counts.aligned(MAY1, MAY1 + 1, 60_000, ZoneOffset.UTC).windows())
        .containsExactly(new WindowCount(MAY1, MAY1 + 60_000, 9));
  }

  @Test
  void totalIsTheRunsLines() {
    assertThat(counts.total()).isEqualTo(12_343);
    assertThat(counts.count(Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(12_343);
  }

  @Test
  void rejectsBadWindows() {
    assertThatThrownBy(() -> counts.perWindow(0, 10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A window must be at least 1 ms long, but was 0 ms.");
    assertThatThrownBy(() -> counts.perWindow(10, 0, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A range must not end before it starts, but was [10, 0).");
    assertThatThrownBy(() -> counts.perWindow(0, Long.MAX_VALUE, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than the 50000000 allowed");
  }
}
