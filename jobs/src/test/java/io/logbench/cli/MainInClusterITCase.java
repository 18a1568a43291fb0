package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.job.FlinkEnvironments;
import io.logbench.testing.LoopbackMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Inside a Flink cluster's context (here a MiniCluster's, as a JobManager running the jar or a
 * {@code flink run} client provides one) {@code main} returns instead of exiting the JVM, and a
 * failing command throws. Were it to call {@code System.exit}, this test's JVM would end.
 */
class MainInClusterITCase {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = LoopbackMiniCluster.extension(1);

  @Test
  void mainReturnsOnSuccessAndThrowsOnFailureInsideACluster() {
    assertThat(FlinkEnvironments.insideCluster()).isTrue();
    Main.main(new String[] {"plan", "../config/quickstart.yaml", "--csv"});
    assertThatThrownBy(() -> Main.main(new String[] {"plan", "../config/nope.yaml"}))
        .isInstanceOf(Main.CommandFailedException.class)
        .hasMessageStartingWith("logbench plan ../config/nope.yaml ended with exit code 2");
  }
}
