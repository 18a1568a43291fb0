package io.logbench.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Pekko tick an embedded MiniCluster gets, and that a tick given to the JVM wins. */
class FlinkEnvironmentsTest {

  private String before;

  @BeforeEach
  void remember() {
    before = System.getProperty(FlinkEnvironments.PEKKO_TICK_PROPERTY);
  }

  @AfterEach
  void restore() {
    if (before == null) {
      System.clearProperty(FlinkEnvironments.PEKKO_TICK_PROPERTY);
    } else {
      System.setProperty(FlinkEnvironments.PEKKO_TICK_PROPERTY, before);
    }
  }

  @Test
  void anEmbeddedMiniClusterTicksEvery100Milliseconds() {
    System.clearProperty(FlinkEnvironments.PEKKO_TICK_PROPERTY);
    FlinkEnvironments.slowPekkoTick();
    assertThat(System.getProperty("pekko.scheduler.tick-duration")).isEqualTo("100ms");
  }

  @Test
  void aTickGivenToTheJvmIsKept() {
    System.setProperty(FlinkEnvironments.PEKKO_TICK_PROPERTY, "20ms");
    FlinkEnvironments.slowPekkoTick();
    assertThat(System.getProperty("pekko.scheduler.tick-duration")).isEqualTo("20ms");
  }
}
