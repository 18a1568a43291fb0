package io.logbench.cli;

import io.logbench.config.Durations;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C (SIGINT) and SIGTERM while a local job runs: the first signal asks the job to stop
 * cleanly, a second one, or the grace period running out, to stop at once; the command then ends
 * normally (files written, summary printed) and exits {@code 128 + signal}: 130 for SIGINT, 143
 * for SIGTERM.
 *
 * <p>It uses {@code sun.misc.Signal} (module {@code jdk.unsupported}) rather than a shutdown hook:
 * a shutdown hook runs while the JVM is already exiting, beside Flink's own hooks that tear the
 * MiniCluster down, so the job could not be stopped and its files written in order. A handler
 * replaces the JVM's default (exit) for the two signals while the job runs, and {@link #close}
 * puts the previous handlers back. Where the JVM does not let a handler be installed (e.g. run
 * with {@code -Xrs}), the signals keep their default and a warning says so.
 */
final class StopSignals implements AutoCloseable {

  /** How long a clean stop may take before the job is stopped at once, by default. */
  static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);

  private final PrintStream err;
  private final String command;
  private final Function<Boolean, CompletableFuture<?>> stop;
  private final Duration grace;
  private final List<Signal> installed = new ArrayList<>();
  private final List<SignalHandler> previous = new ArrayList<>();
  private volatile String received;

  /**
   * Installs the handlers: {@code stop.apply(false)} asks for a clean stop, {@code
   * stop.apply(true)} for an immediate one; both may be called from a signal's thread.
   */
  StopSignals(String command, PrintStream err, Function<Boolean, CompletableFuture<?>> stop, Duration grace) {
    this.command = command;
    this.err = err;
    this.stop = stop;
    this.grace = grace;
    for (String name : List.of("INT", "TERM")) {
      try {
        Signal signal = new Signal(name);
        previous.add(Signal.handle(signal, this::handle));
        installed.add(signal);
      } catch (IllegalArgumentException e) {
        err.println(command + ": warning: cannot handle SIG" + name + " (" + e.getMessage() + "); it ends the"
            + " JVM without writing the run's files.");
      }
    }
  }

  /** The first signal received ({@code SIGINT} or {@code SIGTERM}), or null. */
  String received() {
    return received;
  }

  /** The exit code for the signal received: 128 plus its number (130, 143); 0 when none. */
  int exitCode() {
    return received == null ? 0 : received.equals("SIGINT") ? 130 : 143;
  }

  private synchronized void handle(Signal signal) {
    String name = "SIG" + signal.getName();
    if (received != null) {
      err.println(command + ": " + name + " again: stopping at once (answers in flight are not waited for).");
      stopAtOnce();
      return;
    }
    received = name;
    err.printf(Locale.ROOT, "%s: %s: stopping cleanly: no new batches; waiting up to %s for the answers of"
        + " those sent (%s again to stop at once).%n", command, name, Durations.format(grace), name);
    Thread t = new Thread(this::stopCleanly, command + "-stop");
    t.setDaemon(true);
    t.start();
  }

  /**
   * Asks for a clean stop until one works or the grace period is over, then stops at once. A
   * clean stop is refused while a task is between states (e.g. a bounded task finishing just then
   * declines the savepoint), and Flink keeps or restarts the job then, so asking again shortly
   * after usually works.
   */
  private void stopCleanly() {
    long deadline = System.nanoTime() + grace.toNanos();
    Throwable last = null;
    while (System.nanoTime() < deadline && !stopping) {
      try {
        stop.apply(false).get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        last = e;
        if (System.nanoTime() + RETRY.toNanos() < deadline) {
          err.println(command + ": the clean stop was refused (" + rootMessage(e) + "); asking again in "
              + RETRY.toSeconds() + " s.");
          try {
            Thread.sleep(RETRY.toMillis()); // Flink needs a moment to settle after a refused stop
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            break;
          }
        }
      }
    }
    if (!stopping) {
      err.println(command + ": the clean stop did not end within " + Durations.format(grace)
          + (last == null ? "" : " (" + rootMessage(last) + ")") + "; stopping at once.");
      stopAtOnce();
    }
  }

  private synchronized void stopAtOnce() {
    stopping = true;
    stop.apply(true);
  }

  /** Between two requests for a clean stop Flink refused. */
  private static final Duration RETRY = Duration.ofSeconds(1);

  private volatile boolean stopping;

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof java.util.concurrent.TimeoutException ? "timed out" : t.getClass().getSimpleName() + ": "
        + t.getMessage();
  }

  @Override
  public void close() {
    for (int i = 0; i < installed.size(); i++) {
      Signal.handle(installed.get(i), previous.get(i));
    }
  }
}
