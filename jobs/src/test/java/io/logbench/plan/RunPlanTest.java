package io.logbench.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.schedule.ConstantRateSchedule;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Plans made from run files: how many lines, on which schedule. */
class RunPlanTest {

  /**
   * Regression: an app-json run bounded only by a constant schedule's duration planned its lines
   * from a schedule of the dataset's maximum size and failed with "longer than 292 years".
   */
  @Test
  void appJsonConstantRateWithADurationTakesItsLinesFromTheSchedule() {
    RunPlan plan = RunPlan.of(ConfigLoader.parse(
        "dataset:\n  kind: app-json\nschedule:\n  kind: constant\n  rate: 20000\n  duration: 60s\n", "test"));
    assertThat(plan.lines()).isEqualTo(1_200_000);
    assertThat(plan.duration()).isEqualTo(Duration.ofSeconds(60));
    assertThat(plan.schedule().dueNanos(plan.lines() - 1)).isLessThan(Duration.ofSeconds(60).toNanos());
  }

  @Test
  void linesBeforeADurationAgreeWithTheSchedule() {
    for (double rate : new double[] {0.1, 3, 7.5, 20_000, 1e9}) {
      ConstantRateSchedule s = new ConstantRateSchedule(rate, 1_000_000);
      for (long d : new long[] {1, 999_999_999, 1_000_000_000, 1_000_000_001, 123_456_789_012L}) {
        long expected = s.dueBy(d - 1);
        if (expected < s.lines()) {
          assertThat(ConstantRateSchedule.linesBefore(rate, d)).as("rate %s, %d ns", rate, d).isEqualTo(expected);
        }
      }
    }
    assertThat(ConstantRateSchedule.linesBefore(5, 0)).isZero();
  }
}
