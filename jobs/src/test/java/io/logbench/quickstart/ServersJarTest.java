package io.logbench.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where quickstart finds logbench-servers.jar. */
class ServersJarTest {

  @TempDir Path dir;

  static String none(String name) {
    return null;
  }

  @Test
  void theBuildsLayoutNextToLogbenchJarOrFromTheWorkingDirectory() throws Exception {
    // a clone after the build: jobs/target/logbench.jar and servers/target/logbench-servers.jar
    Path jar = Files.createDirectories(dir.resolve("servers/target")).resolve(ServersJar.FILE);
    Files.writeString(jar, "jar");
    Path jobsTarget = Files.createDirectories(dir.resolve("jobs/target"));
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    assertThat(ServersJar.find(ServersJarTest::none, ServersJarTest::none, jobsTarget, elsewhere)).isEqualTo(jar);
    assertThat(ServersJar.find(ServersJarTest::none, ServersJarTest::none, null, dir)).isEqualTo(jar);
    assertThat(ServersJar.find(ServersJarTest::none, ServersJarTest::none, null, dir.resolve("jobs")))
        .isEqualTo(jar);
    // one copied next to logbench.jar comes first
    Path beside = jobsTarget.resolve(ServersJar.FILE);
    Files.writeString(beside, "jar");
    assertThat(ServersJar.find(ServersJarTest::none, ServersJarTest::none, jobsTarget, dir)).isEqualTo(beside);
  }

  @Test
  void thePropertyThenTheEnvironmentVariableWin() throws Exception {
    Path a = Files.writeString(dir.resolve("a.jar"), "a");
    Path b = Files.writeString(dir.resolve("b.jar"), "b");
    Map<String, String> props = Map.of(ServersJar.PROPERTY, a.toString());
    Map<String, String> env = Map.of(ServersJar.ENV, b.toString());
    assertThat(ServersJar.find(props::get, env::get, null, dir)).isEqualTo(a);
    assertThat(ServersJar.find(ServersJarTest::none, env::get, null, dir)).isEqualTo(b);
    assertThatThrownBy(() -> ServersJar.find(ServersJarTest::none,
            Map.of(ServersJar.ENV, dir.resolve("gone.jar").toString())::get, null, dir))
        .hasMessage(ServersJar.ENV + "=" + dir.resolve("gone.jar") + " is not a file; expected the path of"
            + " logbench-servers.jar (built by 'mvn -B -ntp -q -DskipTests package' in servers/target/).");
  }

  @Test
  void noJarNamesEveryPlaceLookedAtAndHowToBuildIt() {
    assertThatThrownBy(() -> ServersJar.find(ServersJarTest::none, ServersJarTest::none, dir.resolve("x/y"), dir))
        .hasMessageContaining("logbench-servers.jar was not found (looked at " + dir.resolve("x/y/logbench-servers.jar"))
        .hasMessageContaining(dir.resolve("servers/target/logbench-servers.jar").toString())
        .hasMessageContaining("build it with 'mvn -B -ntp -q -DskipTests package'")
        .hasMessageContaining("or set LOGBENCH_SERVERS_JAR");
  }
}
