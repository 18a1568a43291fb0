package io.logbench.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --cluster URL} and {@code --job-jar PATH}: what is accepted, and the errors for the rest. */
class ClusterTargetTest {

  @TempDir Path dir;

  Path jar(String... entries) throws Exception {
    Path jar = dir.resolve("logbench-job.jar");
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
      for (String e : entries) {
        j.putNextEntry(new ZipEntry(e));
        j.closeEntry();
      }
    }
    return jar;
  }

  @Test
  void aRestAddressIsHttpHostAndPortWithFlinksDefaultPort() {
    assertThat(ClusterTarget.rest("http://127.0.0.1:18081")).isEqualTo(URI.create("http://127.0.0.1:18081"));
    assertThat(ClusterTarget.rest("http://flink-jobmanager/")).isEqualTo(URI.create("http://flink-jobmanager:8081"));
    assertThat(ClusterTarget.rest(" HTTP://[::1]:8082 ")).isEqualTo(URI.create("http://[::1]:8082"));
  }

  @Test
  void anythingElseIsRefusedNamingTheValueAndWhatIsExpected() {
    assertThatThrownBy(() -> ClusterTarget.rest("127.0.0.1:8081"))
        .hasMessage("--cluster 127.0.0.1:8081 is not valid: it does not start with http://HOST; expected the"
            + " cluster's REST address, such as http://127.0.0.1:8081.");
    assertThatThrownBy(() -> ClusterTarget.rest("https://flink:8081"))
        .hasMessageStartingWith("--cluster https://flink:8081 is not valid: https is not supported");
    assertThatThrownBy(() -> ClusterTarget.rest("http://flink:8081/v1/jobs"))
        .hasMessageContaining("without a path, query or fragment");
    assertThatThrownBy(() -> ClusterTarget.rest("http://fl ink"))
        .hasMessageStartingWith("--cluster http://fl ink is not valid: it is not a URL");
  }

  @Test
  void theJobJarMustBeAJarOfLogbenchsClasses() throws Exception {
    Path good = jar("io/logbench/cli/Main.class");
    ClusterTarget target = ClusterTarget.of("http://127.0.0.1:8081", good);
    assertThat(target.jobJar()).isEqualTo(good.toAbsolutePath());
    assertThat(target.rest()).isEqualTo(URI.create("http://127.0.0.1:8081"));

    Path missing = dir.resolve("nope.jar");
    assertThatThrownBy(() -> ClusterTarget.of("http://127.0.0.1:8081", missing))
        .hasMessage("The job jar " + missing.toAbsolutePath() + " does not exist; expected logbench-job.jar, the"
            + " jar the cluster runs logbench's jobs from.");
    Path other = jar("org/example/Other.class");
    assertThatThrownBy(() -> ClusterTarget.of("http://127.0.0.1:8081", other))
        .hasMessageContaining("holds no logbench classes");
    Path text = Files.writeString(dir.resolve("text.jar"), "not a jar");
    assertThatThrownBy(() -> ClusterTarget.of("http://127.0.0.1:8081", text))
        .hasMessageContaining("cannot be read as a jar");
  }

  @Test
  void theDefaultJobJarIsBesideTheJarOrClassesThisRunsFrom() throws Exception {
    Path here = Path.of(ClusterTarget.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    assertThat(ClusterTarget.defaultJobJar()).isEqualTo(here.toAbsolutePath().getParent().resolve("logbench-job.jar"));
  }
}
