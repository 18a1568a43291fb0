package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.testing.ChildLogbench;
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
 * archive: made by the first run of a command, used by the next; the command's JVM ends with the
 * launcher however the launcher ends.
 */
class LauncherITCase {

  @TempDir Path dir;

  private Process start(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-jar", ChildLogbench.jar().toString()));
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
    assertThat(jvm.info().commandLine().orElse("")).contains("-XX:ArchiveClassesAtExit=");
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
