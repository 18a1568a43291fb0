package io.logbench.testing;

import io.logbench.job.FlinkEnvironments;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** The MiniCluster every ITCase shares the shape of: one TaskManager, bound to loopback only. */
public final class LoopbackMiniCluster {

  private LoopbackMiniCluster() {}

  /** A MiniCluster extension with {@code slots} task slots, every address on 127.0.0.1. */
  public static MiniClusterExtension extension(int slots) {
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(FlinkEnvironments.loopback())
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(slots)
            .build());
  }
}
