package io.logbench.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ConstantRateScheduleTest {

  @Test
  void threeLinesPerSecondAreDueAtExactThirds() {
    ConstantRateSchedule s = new ConstantRateSchedule(3, 4);

    assertThat(s.dueNanos(0)).isZero();
    assertThat(s.dueNanos(1)).isEqualTo(333_333_333L);
    assertThat(s.dueNanos(2)).isEqualTo(666_666_666L);
    assertThat(s.dueNanos(3)).isEqualTo(1_000_000_000L);
    assertThat(s.durationNanos()).isEqualTo(1_333_333_333L);
    assertThat(s.dueBy(333_333_332L)).isEqualTo(1);
    assertThat(s.dueBy(333_333_333L)).isEqualTo(2);
    assertThat(s.paced()).isTrue();
    assertThat(s.targetRate(0)).isEqualTo(3.0);
  }

  @Test
  void billionsOfLinesDoNotDrift() {
    long lines = 5_000_000_000_000L;
    ConstantRateSchedule s = new ConstantRateSchedule(7000, lines);
    SplittableRandom random = new SplittableRandom(1);
    for (int k = 0; k < 1000; k++) {
      long i = random.nextLong(lines);
      long expected =
          BigInteger.valueOf(i).multiply(BigInteger.valueOf(1_000_000_000L))
              .divide(BigInteger.valueOf(7000)).longValueExact();
      assertThat(s.dueNanos(i)).isEqualTo(expected);
    }
  }

  @Test
  void decimalRatesAreExact() {
    ConstantRateSchedule s = new ConstantRateSchedule(0.1, 3);

    assertThat(s.dueNanos(1)).isEqualTo(10_000_000_000L);
    assertThat(s.durationNanos()).isEqualTo(30_000_000_000L);

    assertThat(new ConstantRateSchedule(2.5, 10).dueNanos(5)).isEqualTo(2_000_000_000L);
  }

  @Test
  void dueTimesAgreeWithDueBy() {
    ScheduleChecks.checkConsistent(new ConstantRateSchedule(3, 1000), 2000, 1);
    ScheduleChecks.checkConsistent(new ConstantRateSchedule(100_000, 42_750_000), 5000, 2);
    ScheduleChecks.checkConsistent(new ConstantRateSchedule(1e9 * 3, 1_000_000_000L), 5000, 3);
    ScheduleChecks.checkConsistent(new ConstantRateSchedule(0.37, 1_000_000), 5000, 4);
    ScheduleChecks.checkConsistent(new ConstantRateSchedule(7000, 5_000_000_000_000L), 5000, 5);
  }

  @Test
  void emptyRunHasNoDuration() {
    ConstantRateSchedule s = new ConstantRateSchedule(10, 0);

    assertThat(s.durationNanos()).isZero();
    assertThat(s.dueBy(1_000_000_000L)).isZero();
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> new ConstantRateSchedule(0, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "A constant rate must be a positive, finite number of lines per second, but was 0.0.");
    assertThatThrownBy(() -> new ConstantRateSchedule(-5, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("but was -5.0.");
    assertThatThrownBy(() -> new ConstantRateSchedule(Double.NaN, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("but was NaN.");
    assertThatThrownBy(() -> new ConstantRateSchedule(10, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A constant-rate schedule needs a line count of 0 or more, but was -1.");
    assertThatThrownBy(() -> new ConstantRateSchedule(0.001, Long.MAX_VALUE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("would last longer than 292 years.");
  }
}
