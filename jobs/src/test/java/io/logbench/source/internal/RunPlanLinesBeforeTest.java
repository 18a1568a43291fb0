package io.logbench.source.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.schedule.UnpacedSchedule;
import org.junit.jupiter.api.Test;

/** The lines a stripe is past at a position: what a restored source counts as done. */
class RunPlanLinesBeforeTest {

  @Test
  void countsTheStripesWholeBatchesBelowThePositionAndTheShortLastOne() {
    // 95 lines in batches of 10: batches 0..9, the last of 5 lines; 3 stripes
    AppJsonDataset d = AppJsonDataset.builder().lines(95).streams(1).startMillis(0).rate(1_000).build();
    RunPlan plan = new RunPlan(d, 0, new UnpacedSchedule(95), null, 10);
    assertThat(plan.linesBefore(0, 3, 0)).isZero();
    assertThat(plan.linesBefore(1, 3, 1)).isZero();
    assertThat(plan.linesBefore(1, 3, 4)).isEqualTo(10); // batch 1
    assertThat(plan.linesBefore(2, 3, 8)).isEqualTo(20); // batches 2, 5
    // stripe 0 done: batches 0, 3, 6 and the 5-line batch 9
    assertThat(plan.linesBefore(0, 3, 12)).isEqualTo(35);
    long all = plan.linesBefore(0, 3, 12) + plan.linesBefore(1, 3, 10) + plan.linesBefore(2, 3, 11);
    assertThat(all).isEqualTo(95);
  }
}
