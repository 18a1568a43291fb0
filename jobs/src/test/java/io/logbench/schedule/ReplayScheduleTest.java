package io.logbench.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReplayScheduleTest {

  private static final long S = 1_000_000_000L;

  @Test
  void factorSixtyMapsAMinuteGapToOneSecond() {
    ArrayDataset d = new ArrayDataset(1_000, 61_000, 61_000, 121_030);
    ReplaySchedule s = ReplaySchedule.of(d, 60);

    assertThat(s.lines()).isEqualTo(4);
    assertThat(s.dueNanos(0)).isZero();
    assertThat(s.dueNanos(1)).isEqualTo(S);
    assertThat(s.dueNanos(2)).isEqualTo(S);
    assertThat(s.dueNanos(3)).isEqualTo(2 * S + 500_000);
    assertThat(s.durationNanos()).isEqualTo((120_031L * 1_000_000) / 60);
    assertThat(s.dueBy(S - 1)).isEqualTo(1);
    assertThat(s.dueBy(S)).isEqualTo(3);
  }

  @Test
  void replaysASliceFromItsOwnFirstLine() {
    ArrayDataset d = ArrayDataset.of(100, i -> 5_000 + i * 10);
    ReplaySchedule s = new ReplaySchedule(d, 40, 20, 0.5);

    assertThat(s.firstIndex()).isEqualTo(40);
    assertThat(s.dueNanos(0)).isZero();
    assertThat(s.dueNanos(1)).isEqualTo(20_000_000);
    assertThat(s.dueNanos(19)).isEqualTo(19 * 20_000_000L);
  }

  @Test
  void dueTimesAgreeWithDueBy() {
    ArrayDataset bursts = ArrayDataset.of(5_000, i -> 1_600_000_000_000L + (i / 17) * 1_003 + (i % 17 == 16 ? 1 : 0));
    ScheduleChecks.checkConsistent(ReplaySchedule.of(bursts, 60), 3000, 1);
    ScheduleChecks.checkConsistent(ReplaySchedule.of(bursts, 0.3), 3000, 2);
    ScheduleChecks.checkConsistent(new ReplaySchedule(bursts, 100, 4000, 7), 3000, 3);
  }

  @Test
  void rejectsBadArguments() {
    ArrayDataset d = new ArrayDataset(1, 2, 3);
    assertThatThrownBy(() -> ReplaySchedule.of(d, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A replay speed-up must be a positive, finite factor, but was 0.0.");
    assertThatThrownBy(() -> ReplaySchedule.of(d, -2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A replay speed-up must be a positive, finite factor, but was -2.0.");
    assertThatThrownBy(() -> new ReplaySchedule(d, 2, 2, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A replay of lines [2, 2 + 2) does not fit in dataset array of 3 lines.");
  }
}
