package io.logbench.quickstart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One server (Kafka or OpenSearch) in a child JVM started from {@link ServersJar}: {@code java
 * -cp logbench-servers.jar io.logbench.servers.ServerMain <server> [--watch-stdin]}, its standard
 * output and error written to a log file. It is ready when the log has the line {@value #READY}
 * {@code <server> <address>}. {@link #stop} sends SIGTERM (the server stops and deletes its data)
 * and waits; with {@code watchParent} the child also stops when this JVM dies, since it watches
 * the end of its standard input.
 */
public final class ServerProcess {

  /** The main class of the servers' jar. */
  static final String MAIN = "io.logbench.servers.ServerMain";
  /** The line a server prints once it answers; its name and address follow. */
  static final String READY = "logbench-server ready";
  /** How long a server may take to stop after SIGTERM before it is killed. */
  public static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

  private final String server;
  private final Process process;
  private final Path log;
  private String address;

  private ServerProcess(String server, Process process, Path log) {
    this.server = server;
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code server} ("kafka" or "opensearch") from {@code jar} with {@code jvmOptions},
   * writing its output to {@code log}; returns without waiting for it to be ready.
   */
  public static ServerProcess start(Path jar, String server, Path log, boolean watchParent,
      List<String> jvmOptions) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(jar.toString());
    command.add(MAIN);
    command.add(server);
    if (watchParent) {
      command.add("--watch-stdin");
    }
    Files.createDirectories(log.toAbsolutePath().getParent());
    ProcessBuilder b = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
    // without watchParent the child ignores its input, and keeps running after this JVM exits
    return new ServerProcess(server, b.start(), log);
  }

  /**
   * Waits until the server prints its ready line, and returns its address; an {@link
   * IllegalStateException} naming the log file when it exits first or {@code timeout} passes.
   */
  public String awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String prefix = READY + " " + server + " ";
    while (true) {
      for (String line : logLines()) {
        if (line.startsWith(prefix)) {
          address = line.substring(prefix.length()).trim();
          return address;
        }
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(server + " stopped (exit code " + process.exitValue()
            + ") before it was ready; see " + log + lastLines());
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException(server + " was not ready within " + timeout.toSeconds()
            + " s; see " + log + lastLines());
      }
      // returns at once when the child exits; otherwise the log is read again in 200 ms
      process.waitFor(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS);
    }
  }

  private List<String> logLines() {
    try {
      return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
    } catch (java.nio.charset.MalformedInputException e) {
      return List.of(); // caught in the middle of a character: read again on the next pass
    } catch (IOException e) {
      throw new UncheckedIOException("Reading " + log + " failed: " + e.getMessage(), e);
    }
  }

  private String lastLines() {
    List<String> lines = logLines();
    if (lines.isEmpty()) {
      return " (it is empty).";
    }
    List<String> tail = lines.subList(Math.max(0, lines.size() - 5), lines.size());
    return "; its last lines:\n  " + String.join("\n  ", tail);
  }

  /** The server's name, "kafka" or "opensearch". */
  public String server() {
    return server;
  }

  /** Its address once ready ({@code 127.0.0.1:port} or {@code http://127.0.0.1:port}), else null. */
  public String address() {
    return address;
  }

  public long pid() {
    return process.pid();
  }

  public Path log() {
    return log;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Sends SIGTERM, without waiting. */
  public void signalStop() {
    process.destroy();
  }

  /**
   * Stops the server: SIGTERM, then a kill if it has not exited within {@link #STOP_TIMEOUT};
   * returns whether it stopped on its own.
   */
  public boolean stop() {
    if (!process.isAlive()) {
      return true;
    }
    process.destroy();
    try {
      if (process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        return true;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.destroyForcibly();
    return false;
  }
}
