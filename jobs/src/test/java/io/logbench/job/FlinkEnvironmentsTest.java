package io.logbench.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.taskexecutor.TaskExecutorResourceSpec;
import org.apache.flink.runtime.taskexecutor.TaskExecutorResourceUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Pekko tick an embedded MiniCluster gets, that a tick given to the JVM wins, and that the
 * small network buffers are as many as Flink's defaults.
 */
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

  @Test
  void smallNetworkBuffersAreAsManyAsTheDefaultsInAnEighthOfTheMemory() {
    Configuration small = FlinkEnvironments.smallNetworkBuffers();
    // as Flink sizes an in-process TaskManager (the MiniCluster's)
    TaskExecutorResourceSpec defaults = TaskExecutorResourceUtils.resourceSpecFromConfigForLocalExecution(new Configuration());
    TaskExecutorResourceSpec spec = TaskExecutorResourceUtils.resourceSpecFromConfigForLocalExecution(small);
    long defaultBuffers = defaults.getNetworkMemSize().getBytes()
        / TaskManagerOptions.MEMORY_SEGMENT_SIZE.defaultValue().getBytes();
    assertThat(defaultBuffers).isEqualTo(FlinkEnvironments.DEFAULT_NETWORK_BUFFERS);
    assertThat(small.get(TaskManagerOptions.MEMORY_SEGMENT_SIZE)).isEqualTo(MemorySize.parse("4kb"));
    assertThat(spec.getNetworkMemSize().getBytes() / FlinkEnvironments.SMALL_SEGMENT.getBytes()).isEqualTo(defaultBuffers);
    assertThat(spec.getNetworkMemSize().getBytes() * 8).isEqualTo(defaults.getNetworkMemSize().getBytes());
  }
}
