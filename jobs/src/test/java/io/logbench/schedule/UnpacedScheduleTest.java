package io.logbench.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UnpacedScheduleTest {

  @Test
  void everyLineIsDueAtOnce() {
    UnpacedSchedule s = new UnpacedSchedule(1000);

    assertThat(s.paced()).isFalse();
    assertThat(s.lines()).isEqualTo(1000);
    assertThat(s.dueNanos(0)).isZero();
    assertThat(s.dueNanos(999)).isZero();
    assertThat(s.dueBy(0)).isEqualTo(1000);
    assertThat(s.durationNanos()).isZero();
    assertThat(s.targetRate(5)).isNaN();
  }

  @Test
  void rejectsNegativeLineCount() {
    assertThatThrownBy(() -> new UnpacedSchedule(-3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("An unpaced schedule needs a line count of 0 or more, but was -3.");
  }
}
