package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.testing.ChildLogbench;
import io.logbench.testing.Jdks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar logbench.jar} runs its command in a second JVM with a class-data sharing
 * archive (on Java 25, an ahead-of-time cache): made by the first run of a command, used by the
 * next; the command's JVM ends with the launcher however the launcher ends.
 */
class LauncherITCase {

  @TempDir Path dir;

  private Process start(String... args) throws IOException {
    return start(Path.of(System.getProperty("java.home"), "bin", "java"), List.of(), args);
  }

  /** {@code java [jvm] -Xmx256m -jar logbench.jar args}, its output in out.txt and err.txt. */
  private Process start(Path java, List<String> jvm, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(java.toString()));
    cmd.addAll(jvm);
    cmd.addAll(List.of("-Xmx256m", "-jar", ChildLogbench.jar().toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(dir.resolve("out.txt").toFile())
        .redirectError(dir.resolve("err.txt").toFile());
    pb.environment().put("LOGBENCH_CDS_DIR", dir.resolve("cds").toString());
    pb.environment().remove("LOGBENCH_LAUNCHER");
    return pb.start();
  }

  private List<Path> archives() throws IOException {
    if (!Files.isDirectory(dir.resolve("cds"))) {
      return List.of();
    }
    try (var files = Files.list(dir.resolve("cds"))) {
      return files.sorted().toList();
    }
  }

  /** The command's JVM under {@code launcher}, once it runs (30 s at most). */
  private static ProcessHandle commandJvm(Process launcher) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      Optional<ProcessHandle> jvm = launcher.descendants()
          .filter(p -> p.info().commandLine().orElse("").contains("-D" + Launcher.LAUNCHED + "=")).findFirst();
      if (jvm.isPresent()) {
        return jvm.get();
      }
      assertThat(launcher.isAlive()).as("the launcher is still running").isTrue();
      launcher.waitFor(50, TimeUnit.MILLISECONDS); // returns at once if it ends
    }
    throw new AssertionError("No command JVM under the launcher within 30 s.");
  }

  private Path runFile(int seconds) throws IOException {
    Path f = dir.resolve("run-" + seconds + ".yaml");
    Files.writeString(f, String.join("\n", "name: launcher-it",
        "dataset: {kind: app-json, seed: 0, streams: 2}",
        "schedule: {kind: constant, rate: 10, duration: " + seconds + "s}",
        "timestamps: now", "batch: {lines: 10}", "window: 1m", "zone: UTC",
        "backends:", "  - kind: discard", ""));
    return f;
  }

  @Test
  void theFirstRunOfACommandMakesItsArchiveAndTheNextRunsOnIt() throws Exception {
    Process first = start("--version");
    assertThat(first.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(first.exitValue()).isZero();
    String version = Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8);
    assertThat(version).startsWith("logbench ");
    List<Path> made = archives();
    assertThat(made).hasSize(1);
    assertThat(made.get(0).getFileName().toString()).endsWith("-none.jsa");

    Process generate = start("generate", runFile(2).toString(), "--run-dir", dir.resolve("run1").toString(), "--quiet");
    ProcessHandle jvm = commandJvm(generate);
    // the launcher's own options (before -jar) go to the command's JVM
    assertThat(jvm.info().commandLine().orElse("")).contains("-XX:ArchiveClassesAtExit=", " -Xmx256m ");
    assertThat(generate.waitFor(180, TimeUnit.SECONDS)).isTrue();
    assertThat(generate.exitValue()).as(Files.readString(dir.resolve("err.txt"))).isZero();
    assertThat(archives()).hasSize(2).anyMatch(p -> p.getFileName().toString().endsWith("-generate.jsa"));

    Process again = start("generate", runFile(2).toString(), "--run-dir", dir.resolve("run2").toString(), "--quiet");
    jvm = commandJvm(again);
    assertThat(jvm.info().commandLine().orElse("")).contains("-XX:SharedArchiveFile=" + dir.resolve("cds"));
    assertThat(again.waitFor(180, TimeUnit.SECONDS)).isTrue();
    assertThat(again.exitValue()).isZero();
    assertThat(Files.readString(dir.resolve("run2").resolve("summary.csv"))).contains("discard");
  }

  @Test
  void onJava25TheFirstRunRecordsSilentlyAndLeavesAnAheadOfTimeCacheWhichTheNextRunsMap() throws Exception {
    Path java = Jdks.java(Launcher.AOT_CACHE_SINCE);
    Process first = start(java, List.of(), "generate", runFile(2).toString(), "--run-dir",
        dir.resolve("run1").toString(), "--quiet");
    ProcessHandle jvm = commandJvm(first);
    assertThat(jvm.info().commandLine().orElse("")).contains("-XX:AOTMode=record", "-XX:AOTConfiguration=");
    assertThat(first.waitFor(180, TimeUnit.SECONDS)).isTrue();
    String err = Files.readString(dir.resolve("err.txt"));
    assertThat(first.exitValue()).as(err).isZero();
    String out = Files.readString(dir.resolve("out.txt"));
    // the JVMs that record and make the cache say so on standard output; Pekko's Unsafe warns
    assertThat(out + err).contains("generate: run launcher-it-").doesNotContain("AOTConfiguration", "AOTCache",
        "sun.misc.Unsafe", "warning");
    List<Path> made = archives();
    assertThat(made).as("the cache alone: no recording, no half-written file").hasSize(1);
    assertThat(made.get(0).getFileName().toString()).endsWith("-generate.aot");
    assertThat(Files.size(made.get(0))).isGreaterThan(1 << 20);

    // a user's -Xlog of the cache's tags goes to the command's JVM after the launcher's own, and shows
    Process again = start(java, List.of("-Xlog:aot=info"), "generate", runFile(2).toString(), "--run-dir",
        dir.resolve("run2").toString(), "--quiet");
    jvm = commandJvm(again);
    assertThat(jvm.info().commandLine().orElse("")).contains("-XX:AOTCache=" + made.get(0));
    assertThat(again.waitFor(180, TimeUnit.SECONDS)).isTrue();
    assertThat(again.exitValue()).as(Files.readString(dir.resolve("err.txt"))).isZero();
    assertThat(Files.readString(dir.resolve("out.txt"))).contains("Opened AOT cache " + made.get(0),
        "Using AOT-linked classes: true");
    assertThat(Files.readString(dir.resolve("run2").resolve("summary.csv"))).contains("discard");
    assertThat(archives()).isEqualTo(made);
  }

  @Test
  void theCommandsJvmEndsWhenTheLauncherIsKilled() throws Exception {
    Process launcher = start("generate", runFile(600).toString(), "--run-dir", dir.resolve("run").toString(), "--quiet");
    ProcessHandle jvm = commandJvm(launcher);
    launcher.destroyForcibly(); // SIGKILL: no handler runs in the launcher
    assertThat(launcher.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(jvm.onExit().get(60, TimeUnit.SECONDS).isAlive()).isFalse();
    // it was killed, as the launcher was: no archive was written for the run, not even in part
    // (a halt writes the archive of -XX:ArchiveClassesAtExit first, for seconds)
    assertThat(archives()).isEmpty();
  }
}
