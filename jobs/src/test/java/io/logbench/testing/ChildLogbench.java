package io.logbench.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * logbench as a child JVM, from the built {@code jobs/target/logbench.jar} (the package phase
 * builds it before Failsafe runs the ITCases), with its stdout and stderr in files: for tests
 * that kill or signal a whole JVM, as a user's {@code kill -9} or Ctrl-C would.
 */
public final class ChildLogbench implements AutoCloseable {

  private final Process process;
  private final Path out;
  private final Path err;

  private ChildLogbench(Process process, Path out, Path err) {
    this.process = process;
    this.out = out;
    this.err = err;
  }

  /** The runnable jar of this build. */
  public static Path jar() {
    Path jar = Path.of(System.getProperty("user.dir")).resolve("target").resolve("logbench.jar");
    assertThat(jar).as("the runnable jar, built in the package phase before the ITCases").isRegularFile();
    return jar;
  }

  /** Starts {@code java -jar logbench.jar args...}, its output in {@code logs/<name>.out|.err}. */
  public static ChildLogbench start(Path logs, String name, String... args) throws IOException {
    return start(logs, name, List.of(), args);
  }

  /**
   * As {@link #start(Path, String, String...)}, with {@code extra} on the class path after the
   * jar (such as the test classes, for a test's Flink file system the child must find).
   */
  public static ChildLogbench start(Path logs, String name, List<Path> extra, String... args) throws IOException {
    Files.createDirectories(logs);
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx384m");
    if (extra.isEmpty()) {
      cmd.add("-jar");
      cmd.add(jar().toString());
    } else {
      StringBuilder cp = new StringBuilder(jar().toString());
      extra.forEach(e -> cp.append(java.io.File.pathSeparatorChar).append(e));
      cmd.add("-cp");
      cmd.add(cp.toString());
      cmd.add("io.logbench.cli.Main");
    }
    cmd.addAll(List.of(args));
    Path out = logs.resolve(name + ".out");
    Path err = logs.resolve(name + ".err");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    return new ChildLogbench(p, out, err);
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Waits for {@code condition}, polling; fails naming {@code what} and the child's output if it never holds. */
  public void await(String what, Duration timeout, BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(process.isAlive()).as("the child ended (exit %s) before %s; its output:%n%s",
          process.isAlive() ? "-" : process.exitValue(), what, output()).isTrue();
      assertThat(System.nanoTime()).as("%s within %s; the child's output:%n%s", what, timeout, output())
          .isLessThan(deadline);
      process.waitFor(100, TimeUnit.MILLISECONDS); // returns at once if it ends
    }
  }

  /** Waits for the child to end; its exit code. */
  public int waitFor(Duration timeout) throws Exception {
    assertThat(process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        .as("the child ended within %s; its output:%n%s", timeout, output()).isTrue();
    return process.exitValue();
  }

  /** Sends {@code signal} (e.g. {@code INT}, {@code TERM}, {@code KILL}) with the system's kill. */
  public void signal(String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -%s %d", signal, process.pid()).isZero();
  }

  public String stdout() throws IOException {
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  public String stderr() throws IOException {
    return Files.readString(err, StandardCharsets.UTF_8);
  }

  /** Both outputs, for failure messages. */
  public String output() {
    try {
      return "stdout:\n" + stdout() + "\nstderr:\n" + stderr();
    } catch (IOException e) {
      return "(output unreadable: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
