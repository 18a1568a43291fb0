package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's archive names and its folder's clean-up (the launch itself: LauncherITCase). */
class LauncherTest {

  @TempDir Path dir;

  @Test
  void anArchiveIsNamedAfterTheJarsPathSizeAndTimeAndTheJdk() throws Exception {
    Path jar = Files.writeString(dir.resolve("logbench.jar"), "one");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(1_000_000));
    String k = Launcher.key(jar, "/jdk", "17.0.15");
    assertThat(k).matches("[0-9a-f]{16}").isEqualTo(Launcher.key(jar, "/jdk", "17.0.15"));
    assertThat(Launcher.key(jar, "/other-jdk", "17.0.15")).isNotEqualTo(k);
    assertThat(Launcher.key(jar, "/jdk", "17.0.16")).isNotEqualTo(k);
    Files.setLastModifiedTime(jar, FileTime.fromMillis(2_000_000)); // a rebuild
    assertThat(Launcher.key(jar, "/jdk", "17.0.15")).isNotEqualTo(k);
    Files.writeString(jar, "three");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(1_000_000));
    assertThat(Launcher.key(jar, "/jdk", "17.0.15")).as("another size").isNotEqualTo(k);
  }

  @Test
  void pruningKeepsTheNewestArchivesAndNothingElseIsTouched() throws Exception {
    for (int i = 0; i < 5; i++) {
      Path a = Files.writeString(dir.resolve("a" + i + "-generate.jsa"), "x");
      Files.setLastModifiedTime(a, FileTime.fromMillis(1_000_000L * (i + 1)));
    }
    Files.writeString(dir.resolve("notes.txt"), "kept");
    Launcher.prune(dir, 2);
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted())
          .containsExactly("a3-generate.jsa", "a4-generate.jsa", "notes.txt");
    }
  }

  @Test
  void commandsThatRunJobsOfMinutesGetC1AloneAndTheLineMakersGetC2ForHotCode() {
    assertThat(Launcher.jit("generate")).containsExactly("-XX:TieredStopAtLevel=1");
    assertThat(Launcher.jit("verify")).isEqualTo(Launcher.C1_ONLY);
    assertThat(Launcher.jit("dataset")).isEqualTo(Launcher.LATER_C2);
    assertThat(Launcher.jit("publish")).isEqualTo(Launcher.LATER_C2);
  }

  @Test
  void theCommandsJvmSamplesItsCountersOnceASecondUnlessGivenItsOwnPerfDataOptions() {
    assertThat(Launcher.perfData(List.of("-Xmx1g"))).containsExactly("-XX:PerfDataSamplingInterval=1000");
    assertThat(Launcher.perfData(List.of("-Xmx1g", "-XX:PerfDataSamplingInterval=20"))).isEmpty();
    assertThat(Launcher.perfData(List.of("-XX:-UsePerfData"))).isEmpty();
    assertThat(Launcher.perfData(List.of("-XX:+UsePerfData"))).isEmpty();
  }
}
