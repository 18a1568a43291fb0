package io.logbench.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real server binary (Loki, VictoriaLogs, Fluent Bit) run as a child process of the test JVM,
 * with its working directory and log in a temporary directory of its own.
 *
 * <p>The binary runs under a small {@code sh} wrapper whose standard input is a pipe from this
 * JVM: when the JVM ends in any way (a failed test, a shutdown hook that never ran, {@code kill
 * -9} of the Failsafe fork) the pipe closes and the wrapper sends the server SIGTERM, so no server
 * outlives the tests. {@link #close} stops the server and every process it started, then deletes
 * its directory.
 */
public final class ExternalServer implements AutoCloseable {

  /**
   * Runs {@code "$@"}, and sends it SIGTERM when its standard input (this JVM's pipe) closes;
   * exits with the server's status.
   */
  private static final String WRAPPER =
      // a background job's stdin is /dev/null unless redirected: keep the pipe on fd 3 for the watcher
      "exec 3<&0\n"
          + "\"$@\" </dev/null 3<&- & p=$!\n"
          + "( cat <&3 >/dev/null; kill -TERM $p 2>/dev/null ) &\n"
          + "w=$!\n"
          + "wait $p; rc=$?\n"
          + "kill $w 2>/dev/null\n"
          + "exit $rc\n";

  private final String name;
  private final Path dir;
  private final Path log;
  private final Process process;
  private final OutputStream lifeline;
  private volatile boolean closed;

  private ExternalServer(String name, Path dir, Path log, Process process) {
    this.name = name;
    this.dir = dir;
    this.log = log;
    this.process = process;
    this.lifeline = process.getOutputStream();
  }

  /** A new temporary directory for a server called {@code name}. */
  public static Path newDirectory(String name) {
    try {
      return Files.createTempDirectory("logbench-" + name.toLowerCase().replaceAll("[^a-z0-9]+", "-") + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts {@code command} in {@code dir} (which the server may fill with its data), its stdout
   * and stderr in {@code dir/<name>.log}.
   */
  public static ExternalServer start(String name, Path dir, List<String> command) {
    List<String> cmd = new ArrayList<>(List.of("sh", "-c", WRAPPER, "sh"));
    cmd.addAll(command);
    Path log = dir.resolve(name.toLowerCase().replaceAll("[^a-z0-9]+", "-") + ".log");
    try {
      Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
      return new ExternalServer(name, dir, log, p);
    } catch (IOException e) {
      throw new IllegalStateException(name + " could not be started as " + command + ": " + e.getMessage(), e);
    }
  }

  /** What the server is called in messages, e.g. {@code Loki}. */
  public String name() {
    return name;
  }

  /** The server's directory (its data, config and log). */
  public Path dir() {
    return dir;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** A condition the server is polled for, such as its readiness endpoint answering. */
  @FunctionalInterface
  public interface Probe {
    boolean holds() throws Exception;
  }

  /**
   * Waits until {@code ready} holds, polling every 100 ms; fails with the end of the server's log
   * when the server exits first or {@code timeout} passes.
   */
  public void awaitReady(Duration timeout, Probe ready) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (true) {
      try {
        if (ready.holds()) {
          return;
        }
      } catch (Exception e) {
        last = e;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited with status " + process.exitValue()
            + " before it was ready; the end of its log (" + log + "):\n" + tail(40));
      }
      if (System.nanoTime() > deadline) {
        close();
        throw new IllegalStateException(name + " was not ready after " + timeout.toSeconds() + " s"
            + (last == null ? "" : " (last probe: " + last + ")") + "; the end of its log:\n" + tail(40), last);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting for " + name + ".", e);
      }
    }
  }

  /** The last {@code lines} lines of the server's log. */
  public String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  /** The whole log so far. */
  public String log() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Stops the server (SIGTERM, then SIGKILL after 10 s) and the processes it started, keeping its
   * directory: for a test that starts the server again on the same data.
   */
  public void stop() {
    List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
    tree.forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      for (ProcessHandle h : tree) {
        h.onExit().get(10, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      // fall through to the forced stop
    }
    tree.forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      lifeline.close();
    } catch (IOException e) {
      // the wrapper is gone already
    }
  }

  /** Stops the server and deletes its directory. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    stop();
    deleteTree(dir);
  }

  /** A server's answer to a plain request of a test. */
  public record Answer(int status, String body) {}

  private static final java.net.http.HttpClient CLIENT =
      java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /**
   * {@code method url} without a body, with {@code headers}, waiting up to 60 s; fails naming the
   * URL when nothing answers.
   */
  public static Answer request(String method, String url, java.util.Map<String, String> headers) {
    java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
        .timeout(Duration.ofSeconds(60)).method(method, java.net.http.HttpRequest.BodyPublishers.noBody());
    headers.forEach(b::header);
    try {
      java.net.http.HttpResponse<String> r = CLIENT.send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body());
    } catch (IOException e) {
      throw new UncheckedIOException("Nothing answered " + method + " " + url + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The bytes of the regular files under {@code dir} that {@code which} takes (0 when {@code dir}
   * does not exist); a file removed while the tree is walked (a part merged away) counts 0.
   */
  public static long fileBytes(Path dir, java.util.function.Predicate<Path> which) {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).filter(which).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalStateException("The files under " + dir + " could not be read: " + e, e);
    }
  }

  /** Deletes {@code dir} and everything under it, as far as it can. */
  public static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // best effort: a temporary directory
    }
  }
}
