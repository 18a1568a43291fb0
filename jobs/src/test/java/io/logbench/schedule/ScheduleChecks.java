package io.logbench.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;

/** Checks every paced schedule must pass: monotone due times that agree with dueBy. */
final class ScheduleChecks {

  private ScheduleChecks() {}

  /** Checks the first lines, the last lines and {@code samples} random lines of the run. */
  static void checkConsistent(Schedule s, int samples, long seed) {
    long n = s.lines();
    SplittableRandom random = new SplittableRandom(seed);
    assertThat(s.dueBy(-1)).isZero();
    if (n == 0) {
      return;
    }
    assertThat(s.dueNanos(0)).isZero();
    assertThat(s.dueBy(Long.MAX_VALUE)).isEqualTo(n);
    assertThat(s.dueNanos(n - 1)).isLessThanOrEqualTo(s.durationNanos());
    for (int k = 0; k < samples; k++) {
      long i;
      if (k < 50) {
        i = Math.min(n - 1, k);
      } else if (k < 100) {
        i = Math.max(0, n - 1 - (k - 50));
      } else {
        i = random.nextLong(n);
      }
      checkLine(s, i);
    }
  }

  static void checkLine(Schedule s, long i) {
    long due = s.dueNanos(i);
    if (i + 1 < s.lines()) {
      assertThat(s.dueNanos(i + 1)).as("due(%d + 1) >= due(%d)", i, i).isGreaterThanOrEqualTo(due);
    }
    assertThat(s.dueBy(due)).as("dueBy(due(%d))", i).isGreaterThan(i);
    assertThat(s.dueBy(due - 1)).as("dueBy(due(%d) - 1)", i).isLessThanOrEqualTo(i);
  }
}
