package io.logbench.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Progress lines on standard error while a job runs, from a supplier of lines (one per backend,
 * say) that any command can give: on a terminal one block refreshed in place every second (ANSI
 * cursor-up and clear-line), otherwise the lines every 10 s, so a log file stays readable; none
 * with {@code --quiet}. Lines must not hold secrets: they go where the command's output goes.
 */
final class Progress implements AutoCloseable {

  /** How progress is shown. */
  enum Mode {
    /** None ({@code --quiet}). */
    QUIET(Duration.ZERO),
    /** A block refreshed in place. */
    TERMINAL(Duration.ofSeconds(1)),
    /** The lines again every 10 s. */
    LINES(Duration.ofSeconds(10));

    final Duration every;

    Mode(Duration every) {
      this.every = every;
    }
  }

  /** QUIET when asked; TERMINAL when {@code err} is this process's standard error on a terminal. */
  static Mode mode(boolean quiet, PrintStream err) {
    if (quiet) {
      return Mode.QUIET;
    }
    // a command's JVM started by the Launcher has a pipe for its input: the launcher says whether
    // its own streams are a terminal
    boolean terminal = System.console() != null || Boolean.getBoolean(Launcher.CONSOLE);
    return terminal && err == System.err ? Mode.TERMINAL : Mode.LINES;
  }

  private static final String UP = "\u001b[%dA";
  private static final String CLEAR_LINE = "\u001b[K";

  private final Mode mode;
  private final PrintStream err;
  private final Supplier<List<String>> lines;
  private ScheduledExecutorService timer;
  private int shown;

  Progress(Mode mode, PrintStream err, Supplier<List<String>> lines) {
    this.mode = mode;
    this.err = err;
    this.lines = lines;
  }

  /** Starts printing {@code lines} as {@code mode} says; close it when the job ends. */
  static Progress start(Mode mode, PrintStream err, Supplier<List<String>> lines) {
    Progress p = new Progress(mode, err, lines);
    if (mode != Mode.QUIET) {
      p.timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "logbench-progress");
        t.setDaemon(true);
        return t;
      });
      long every = mode.every.toMillis();
      p.timer.scheduleAtFixedRate(p::print, every, every, TimeUnit.MILLISECONDS);
    }
    return p;
  }

  /** Prints the lines once: in place of the last block on a terminal, below it otherwise. */
  synchronized void print() {
    if (mode == Mode.QUIET) {
      return;
    }
    List<String> now;
    try {
      now = lines.get();
    } catch (RuntimeException e) {
      // a progress line is never worth failing the run: say so once and go on
      now = List.of("progress: " + e);
    }
    StringBuilder b = new StringBuilder();
    if (mode == Mode.TERMINAL && shown > 0) {
      b.append(String.format(UP, shown));
    }
    for (String line : now) {
      b.append(line);
      if (mode == Mode.TERMINAL) {
        b.append(CLEAR_LINE);
      }
      b.append('\n');
    }
    if (mode == Mode.TERMINAL) {
      // a block shorter than the last: clear the lines left below it
      for (int k = now.size(); k < shown; k++) {
        b.append(CLEAR_LINE).append('\n');
      }
      shown = Math.max(shown, now.size());
    }
    err.print(b);
    err.flush();
  }

  /** Stops; on a terminal the block is drawn a last time with the final figures. */
  @Override
  public void close() {
    if (timer == null) {
      return;
    }
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (mode == Mode.TERMINAL) {
      print();
    }
  }

  /** A duration for people: 850 ms, 42 s, 3 m 05 s, 1 h 02 m. */
  static String duration(long millis) {
    if (millis < 1_000) {
      return Math.max(0, millis) + " ms";
    }
    long s = millis / 1_000;
    if (s < 60) {
      return s + " s";
    }
    if (s < 3_600) {
      return String.format(java.util.Locale.ROOT, "%d m %02d s", s / 60, s % 60);
    }
    return String.format(java.util.Locale.ROOT, "%d h %02d m", s / 3_600, s % 3_600 / 60);
  }
}
