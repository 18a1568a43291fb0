package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code --cluster} and {@code --job-jar} on every command that runs a job: in the help, and the
 * usage errors found before any run file is read or job built.
 */
class ClusterOptionTest {

  @Test
  void everyCommandThatRunsAJobTakesClusterAndJobJar() {
    for (String command : new String[] {"dataset", "publish", "generate", "verify"}) {
      MainTest.Run r = MainTest.run(command, "--help");
      assertThat(r.out()).as(command).contains("--cluster=URL", "--job-jar=PATH");
    }
  }

  @Test
  void aJobJarWithoutAClusterIsAUsageError() {
    MainTest.Run r = MainTest.run("generate", "config/none.yaml", "--job-jar", "x.jar");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("logbench: generate: --job-jar x.jar is only used with --cluster URL; give both"
        + " or neither.\n");
  }

  @Test
  void prometheusIsRefusedWithACluster() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // a free port, so the option's own check passes and the clash is what fails
    }
    MainTest.Run r = MainTest.run("verify", "config/none.yaml", "--cluster", "http://127.0.0.1:8081",
        "--prometheus", "127.0.0.1:" + port);
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("logbench: verify: --prometheus serves the in-process cluster's metrics and"
        + " cannot be used with --cluster http://127.0.0.1:8081;");
  }

  @Test
  void aMissingJobJarIsAUsageErrorNamingIt() {
    Path jar = Path.of("target", "no-such-job.jar").toAbsolutePath();
    MainTest.Run r = MainTest.run("dataset", "config/none.yaml", "--out", "target/none", "--cluster",
        "http://127.0.0.1:8081", "--job-jar", jar.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("logbench: dataset: The job jar " + jar + " does not exist;");
  }
}
