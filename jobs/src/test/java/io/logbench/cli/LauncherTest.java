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
  void anArchiveIsNamedAfterTheJarsPathSizeAndTimeTheJdkAndTheJvmOptionsButNotItsPropertiesOrLogging()
      throws Exception {
    Path jar = Files.writeString(dir.resolve("logbench.jar"), "one");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(1_000_000));
    List<String> jvm = List.of("-Xmx1g");
    String k = Launcher.key(jar, "/jdk", "17.0.15", jvm);
    assertThat(k).matches("[0-9a-f]{16}").isEqualTo(Launcher.key(jar, "/jdk", "17.0.15", jvm));
    assertThat(Launcher.key(jar, "/other-jdk", "17.0.15", jvm)).isNotEqualTo(k);
    assertThat(Launcher.key(jar, "/jdk", "17.0.16", jvm)).isNotEqualTo(k);
    assertThat(Launcher.key(jar, "/jdk", "17.0.15", List.of("-Xmx1g", "-XX:+UseCompactObjectHeaders")))
        .isNotEqualTo(k);
    assertThat(Launcher.key(jar, "/jdk", "17.0.15", List.of())).isNotEqualTo(k);
    assertThat(Launcher.key(jar, "/jdk", "17.0.15", List.of("-Dlogbench.x=1", "-Xmx1g", "-Xlog:aot=info")))
        .as("properties and logging do not count").isEqualTo(k);
    Files.setLastModifiedTime(jar, FileTime.fromMillis(2_000_000)); // a rebuild
    assertThat(Launcher.key(jar, "/jdk", "17.0.15", jvm)).isNotEqualTo(k);
    Files.writeString(jar, "three");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(1_000_000));
    assertThat(Launcher.key(jar, "/jdk", "17.0.15", jvm)).as("another size").isNotEqualTo(k);
  }

  @Test
  void pruningKeepsTheNewestArchivesOfEitherKindAndNothingElseIsTouched() throws Exception {
    for (int i = 0; i < 5; i++) {
      Path a = Files.writeString(dir.resolve("a" + i + "-generate.jsa"), "x");
      Files.setLastModifiedTime(a, FileTime.fromMillis(1_000_000L * (i + 1)));
    }
    Path cache = Files.writeString(dir.resolve("a5-generate.aot"), "x");
    Files.setLastModifiedTime(cache, FileTime.fromMillis(500_000L)); // the oldest
    Files.writeString(dir.resolve("notes.txt"), "kept");
    Launcher.prune(dir, 2);
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted())
          .containsExactly("a3-generate.jsa", "a4-generate.jsa", "notes.txt");
    }
    Files.writeString(dir.resolve("a6-generate.aot"), "x"); // now: the newest
    Launcher.prune(dir, 2);
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted())
          .containsExactly("a4-generate.jsa", "a6-generate.aot", "notes.txt");
    }
  }

  @Test
  void java17MakesADynamicArchiveAtExitAndMapsItOnTheNextRuns() {
    Path archive = dir.resolve("k-generate.jsa");
    Path dumping = dir.resolve("k-generate.jsa.42.tmp");
    assertThat(Launcher.archiveSuffix(17)).isEqualTo(".jsa");
    assertThat(Launcher.archiveOptions(17, archive, dumping)).containsExactly("-Xlog:cds=off",
        "-Xlog:cds+dynamic=off", "-XX:ArchiveClassesAtExit=" + dumping, "-Xshare:auto");
    assertThat(Launcher.archiveOptions(17, archive, null)).containsExactly("-Xlog:cds=off", "-Xlog:cds+dynamic=off",
        "-XX:SharedArchiveFile=" + archive, "-Xshare:auto");
  }

  @Test
  void java25RecordsTheRunSilentlyAndMakesAnAheadOfTimeCacheInAJvmOfItsOwn() {
    Path archive = dir.resolve("k-generate.aot");
    Path dumping = dir.resolve("k-generate.aot.42.tmp");
    Path conf = dir.resolve("k-generate.aot.42.tmpconf");
    List<String> unsafe = List.of("--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED");
    assertThat(Launcher.archiveSuffix(25)).isEqualTo(".aot");
    assertThat(Launcher.aotConfiguration(dumping)).isEqualTo(conf);
    assertThat(Launcher.archiveOptions(25, archive, dumping)).startsWith("-Xlog:aot*=off", "-Xlog:cds*=off",
        "-XX:+UnlockDiagnosticVMOptions", "-XX:-DisplayVMOutput", "-XX:AOTMode=record",
        "-XX:AOTConfiguration=" + conf).endsWith(unsafe.toArray(String[]::new)).hasSize(8);
    assertThat(Launcher.archiveOptions(25, archive, null)).containsExactly("-Xlog:aot*=off", "-Xlog:cds*=off",
        "-XX:AOTCache=" + archive, unsafe.get(0), unsafe.get(1));
    // the cache is made with the command JVM's own options, or it would not fit them
    List<String> common = List.of("-Xmx1g", "-XX:TieredStopAtLevel=1");
    assertThat(Launcher.aotCreate("/jdk/bin/java", dumping, common, dir.resolve("l.jar"))).containsExactly(
        "/jdk/bin/java", "-Xlog:aot*=off", "-Xlog:cds*=off", "-XX:AOTMode=create", "-XX:AOTConfiguration=" + conf,
        "-XX:AOTCache=" + dumping, unsafe.get(0), unsafe.get(1), "-Xmx1g", "-XX:TieredStopAtLevel=1", "-cp",
        dir.resolve("l.jar").toString());
    assertThat(Launcher.quietUnsafe(21)).as("options Java 21 does not know").isEmpty();
    assertThat(Launcher.quietUnsafe(24)).isEqualTo(unsafe);
  }

  @Test
  void theJvmOptionsAreThoseBeforeJarOnTheCommandLineUnlessItCannotSayThemAll() {
    assertThat(Launcher.optionsBeforeJar(new String[] {"-Xmx1g", "-Dx=1", "-jar", "l.jar", "generate", "-Xmx2g"}))
        .containsExactly("-Xmx1g", "-Dx=1");
    assertThat(Launcher.optionsBeforeJar(new String[] {"-jar", "l.jar"})).isEmpty();
    assertThat(Launcher.optionsBeforeJar(new String[] {"@opts", "-jar", "l.jar"})).as("an argument file").isNull();
    assertThat(Launcher.optionsBeforeJar(new String[] {"-cp", "l.jar", "io.logbench.cli.Launcher"})).isNull();
    assertThat(Launcher.MAIN).isEqualTo(Main.class.getName());
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
    assertThat(Launcher.perfData(17, List.of("-Xmx1g"))).containsExactly("-XX:PerfDataSamplingInterval=1000");
    assertThat(Launcher.perfData(17, List.of("-Xmx1g", "-XX:PerfDataSamplingInterval=20"))).isEmpty();
    assertThat(Launcher.perfData(17, List.of("-XX:-UsePerfData"))).isEmpty();
    assertThat(Launcher.perfData(17, List.of("-XX:+UsePerfData"))).isEmpty();
    assertThat(Launcher.perfData(25, List.of("-Xmx1g"))).as("Java 25 has no such option").isEmpty();
  }
}
