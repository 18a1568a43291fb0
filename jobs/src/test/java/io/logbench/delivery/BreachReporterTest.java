package io.logbench.delivery;

import static org.assertj.core.api.Assertions.assertThatCode;

import org.junit.jupiter.api.Test;

/**
 * {@link BreachReporter} closed before it was opened (a restart attempt cancelled before the task
 * opened, as after a lost TaskManager) throws nothing: an exception there is fatal to the
 * TaskManager that ran it.
 */
class BreachReporterTest {

  @Test
  void closedWithoutHavingBeenOpenedItThrowsNothing() {
    assertThatCode(() -> new BreachReporter("board", "opensearch").close()).doesNotThrowAnyException();
  }
}
