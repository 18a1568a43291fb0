package io.logbench.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LadderScheduleTest {

  private static final long S = 1_000_000_000L;

  @Test
  void seed000StepsAreLaidOutLikeTheK6Script() {
    List<LadderStep> steps = LadderSchedule.seed000(Long.MAX_VALUE).steps();

    assertThat(steps).hasSize(7);
    assertThat(steps.get(0)).isEqualTo(new LadderStep(0, 5000, 0, 30 * S, 150 * S));
    assertThat(steps.get(6)).isEqualTo(new LadderStep(6, 100_000, 900 * S, 930 * S, 1050 * S));
    assertThat(steps).extracting(LadderStep::targetRate)
        .containsExactly(5000L, 10000L, 20000L, 40000L, 50000L, 70000L, 100000L);
  }

  @Test
  void totalLinesEqualTheIntegralOfTheRate() {
    LadderSchedule s = LadderSchedule.seed000(Long.MAX_VALUE);
    double integral = 0;
    double previous = 0;
    for (long rate : LadderSchedule.SEED000_STEPS) {
      integral += (previous + rate) / 2 * 30 + rate * 120.0;
      previous = rate;
    }

    assertThat(integral).isEqualTo(42_750_000.0);
    assertThat((double) s.lines()).isCloseTo(integral, within(1.0));
    assertThat(s.durationNanos()).isEqualTo(1050 * S);
    assertThat(s.dueNanos(s.lines() - 1)).isLessThan(1050 * S);
    assertThat(s.dueNanos(s.lines())).isGreaterThanOrEqualTo(1050 * S);
  }

  @Test
  void firstHoldSendsSixHundredThousandLines() {
    LadderSchedule s = LadderSchedule.seed000(Long.MAX_VALUE);
    long inHold = s.dueBy(150 * S - 1) - s.dueBy(30 * S - 1);

    assertThat(inHold).isBetween(599_999L, 600_001L);
    assertThat(s.dueBy(30 * S - 1)).isEqualTo(75_000);
  }

  @Test
  void holdsAreEvenlySpacedLikeAConstantRate() {
    LadderSchedule s = LadderSchedule.seed000(Long.MAX_VALUE);
    ConstantRateSchedule c = new ConstantRateSchedule(5000, 600_000);
    for (long i = 0; i < 600_000; i += 997) {
      assertThat(s.dueNanos(75_000 + i)).isEqualTo(30 * S + c.dueNanos(i));
    }
  }

  @Test
  void targetRateAtHoldMidpointsIsTheStepRate() {
    LadderSchedule s = LadderSchedule.seed000(Long.MAX_VALUE);
    for (LadderStep step : s.steps()) {
      long mid = (step.holdStartNanos() + step.holdEndNanos()) / 2;
      assertThat(s.targetRate(mid)).isEqualTo((double) step.targetRate());
    }
    assertThat(s.targetRate(15 * S)).isEqualTo(2500.0);
    assertThat(s.targetRate(165 * S)).isEqualTo(7500.0);
    assertThat(s.targetRate(1050 * S)).isZero();
  }

  @Test
  void dueTimesAgreeWithDueByAndTheClosedForm() {
    LadderSchedule s = LadderSchedule.seed000(Long.MAX_VALUE);
    ScheduleChecks.checkConsistent(s, 3000, 7);

    SplittableRandom random = new SplittableRandom(8);
    for (int k = 0; k < 2000; k++) {
      long offset = random.nextLong(s.durationNanos() + 10 * S) - 5 * S;
      assertThat(s.dueBy(offset)).as("dueBy(%d)", offset)
          .isEqualTo(s.linesDueBefore(Math.max(0, offset + 1)));
    }
    for (LadderStep step : s.steps()) {
      for (long t : new long[] {step.rampStartNanos(), step.holdStartNanos(), step.holdEndNanos()}) {
        for (long d = -2; d <= 2; d++) {
          assertThat(s.dueBy(t + d)).isEqualTo(s.linesDueBefore(Math.max(0, t + d + 1)));
        }
      }
    }
  }

  @Test
  void rampsDownAndOddDurationsStayConsistent() {
    LadderSchedule s =
        new LadderSchedule(
            List.of(7L, 3L, 3L, 1000L, 1L), Duration.ofMillis(1234), Duration.ofNanos(777_777_777),
            Long.MAX_VALUE);
    ScheduleChecks.checkConsistent(s, 3000, 9);
    for (long t = -1; t <= s.durationNanos() + 1; t += 1_000_003) {
      assertThat(s.dueBy(t)).isEqualTo(s.linesDueBefore(Math.max(0, t + 1)));
    }

    LadderSchedule noRamp = new LadderSchedule(List.of(4L, 2L), Duration.ZERO, Duration.ofSeconds(1), 100);
    assertThat(noRamp.lines()).isEqualTo(6);
    assertThat(noRamp.dueNanos(4)).isEqualTo(S);
    assertThat(noRamp.dueNanos(5)).isEqualTo(S + S / 2);
    ScheduleChecks.checkConsistent(noRamp, 100, 10);
  }

  @Test
  void aSmallDatasetEndsTheRunEarly() {
    LadderSchedule s = LadderSchedule.seed000(100_000);

    assertThat(s.lines()).isEqualTo(100_000);
    assertThat(s.durationNanos()).isEqualTo(s.dueNanos(100_000));
    assertThat(s.durationNanos()).isBetween(30 * S, 150 * S);
    assertThat(s.dueBy(Long.MAX_VALUE)).isEqualTo(100_000);
    ScheduleChecks.checkConsistent(s, 1000, 11);
  }

  @Test
  void rejectsBadArguments() {
    Duration r = Duration.ofSeconds(30);
    assertThatThrownBy(() -> new LadderSchedule(List.of(), r, r, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A ladder schedule needs at least one step rate.");
    assertThatThrownBy(() -> new LadderSchedule(List.of(5L, 0L), r, r, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Every ladder step rate must be above 0 lines per second, but step 1 is 0.");
    assertThatThrownBy(() -> new LadderSchedule(List.of(5L), Duration.ofSeconds(-1), r, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A ladder's ramp and hold cannot be negative, but were PT-1S and PT30S.");
    assertThatThrownBy(() -> new LadderSchedule(List.of(5L), Duration.ZERO, Duration.ZERO, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A ladder's ramp and hold cannot both be zero.");
  }
}
