package io.logbench.cli;

import io.logbench.config.Durations;
import io.logbench.dataset.RangeCounts;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.plan.ScheduleSpec;
import io.logbench.schedule.KeyedWindowCounts;
import io.logbench.schedule.TimestampMode;
import io.logbench.schedule.WindowCount;
import io.logbench.schedule.WindowCounts;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code plan CONFIG [--window DURATION] [--csv] [--start TIME] [--by KEY [--parallelism N]]}:
 * what a run would send, and the exact number of lines in each window, from arithmetic over the
 * dataset (nothing is generated except, for the byte total, the lines' sizes); with {@code --by},
 * the exact count of each value of a field per window, from the dataset's own draws.
 */
@Command(name = "plan", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = "Total lines and bytes, duration, and the exact line count of every window"
        + " (arithmetic over the dataset, nothing sent); with --by, the exact count of each value of"
        + " a field per window.")
final class PlanCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "CONFIG", description = "The run file.")
  Path file;

  @Option(names = "--window", paramLabel = "DURATION",
      description = "Window size (default: the run file's); must divide a day.")
  Duration window;

  @Option(names = "--csv", description = "Print CSV only: window_start,lines, or window_start,key,count with --by.")
  boolean csv;

  @Option(names = "--start", paramLabel = "TIME",
      description = "The run's start, for compressed and now timestamps (default: the next minute).")
  Instant start;

  @Option(names = "--by", paramLabel = "KEY",
      description = "Count by a field: status or path (nginx-month), level or container (app-json).")
  String by;

  @Option(names = "--parallelism", paramLabel = "N",
      description = "Threads that count --by (default: the machine's cores).")
  Integer parallelismOption;

  private final PrintStream out;

  PlanCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    if (by == null && parallelismOption != null) {
      throw new UsageException("plan: --parallelism sets the threads that count --by; give --by too.");
    }
    int parallelism = parallelismOption == null ? Runtime.getRuntime().availableProcessors() : parallelismOption;
    if (parallelism < 1) {
      throw new UsageException("plan: --parallelism " + parallelism + " is not valid; expected 1 or more.");
    }
    RunConfig config = ConfigLoader.load(file);
    if (window != null) {
      config = config.withWindow(window);
    }
    RunPlan plan = RunPlan.of(config);
    long runStart = start != null ? start.toEpochMilli()
        : (System.currentTimeMillis() / 60_000 + 1) * 60_000; // the next whole minute
    long[] span = plan.span(runStart);
    WindowCounts windows =
        plan.expectedCounts(runStart).aligned(span[0], span[1], config.window().toMillis(), config.zone());
    KeyedWindowCounts keyed = null;
    if (by != null) {
      keyed = keyedCounts(plan, by, windows, runStart, parallelism);
      if (csv) {
        printCsv(keyed, config.zone(), out);
        return 0;
      }
    }
    if (csv) {
      StringBuilder text = new StringBuilder("window_start,lines\n");
      for (WindowCount w : windows.windows()) {
        text.append(Format.time(w.startMillis(), config.zone())).append(',').append(w.count()).append('\n');
      }
      out.print(text);
      return 0;
    }
    long bytes = plan.dataset().byteSize(plan.firstIndex(), plan.firstIndex() + plan.lines());
    out.printf("run         %s (%s)%n", config.name(), file);
    out.printf("dataset     %s%n", describeDataset(plan));
    out.printf("lines       %s%n", Format.count(plan.lines()));
    out.printf(Locale.ROOT, "bytes       %s (%s, %.1f a line, newlines not counted)%n",
        Format.count(bytes), Format.bytes(bytes), plan.lines() == 0 ? 0.0 : (double) bytes / plan.lines());
    out.printf("schedule    %s%n", describeSchedule(plan));
    out.printf("timestamps  %s%s%n", config.timestamps().key(),
        config.timestamps() == TimestampMode.ORIGINAL ? ""
            : " (run start " + (start != null ? "" : "assumed ") + Format.time(runStart, config.zone()) + ")");
    out.printf("span        %s .. %s%n", Format.time(span[0], config.zone()), Format.time(span[1], config.zone()));
    out.printf("windows     %d of %s, aligned to midnight in %s%n", windows.windows().size(),
        Durations.format(config.window()), config.zone());
    if (keyed != null) {
      out.printf("by          %s: %d values, counted from the dataset's draws (no line made)%n",
          keyed.key(), keyed.values().size());
      out.println();
      printTable(keyed, config.zone(), out);
      return 0;
    }
    out.println();
    out.printf("%-29s %14s%n", "window_start", "lines");
    for (WindowCount w : windows.windows()) {
      out.printf("%-29s %14s%n", Format.time(w.startMillis(), config.zone()), Format.count(w.count()));
    }
    out.printf("%-29s %14s%n", "total", Format.count(windows.total()));
    return 0;
  }

  /** Counts by {@code by}, or a usage error naming the keys the dataset has. */
  private static KeyedWindowCounts keyedCounts(
      RunPlan plan, String by, WindowCounts windows, long runStart, int parallelism) {
    var dataset = plan.dataset();
    if (!dataset.countKeys().contains(by)) {
      throw new UsageException("plan: --by " + by + " is not a field of dataset " + dataset.name()
          + "; expected " + String.join(" or ", dataset.countKeys()) + ".");
    }
    int values = dataset.keyedCounts(by).values().size();
    long cells = (long) windows.windows().size() * values;
    if (cells > RangeCounts.MAX_CELLS) {
      throw new UsageException("plan: --by " + by + " over "
          + Format.count(windows.windows().size()) + " windows of " + values + " values makes "
          + Format.count(cells) + " counts, more than the " + Format.count(RangeCounts.MAX_CELLS)
          + " plan prints; use a longer --window.");
    }
    KeyedWindowCounts keyed = plan.keyedCounts(by, windows, runStart, parallelism);
    for (int w = 0; w < keyed.windows().size(); w++) {
      long sum = 0;
      for (int v = 0; v < values; v++) {
        sum += keyed.count(w, v);
      }
      // the per-value counts and the window's line count come from different arithmetic
      if (sum != keyed.windows().get(w).count()) {
        throw new IllegalStateException("The counts by " + by + " of the window at "
            + keyed.windows().get(w).startMillis() + " add up to " + sum + ", not its "
            + keyed.windows().get(w).count() + " lines.");
      }
    }
    return keyed;
  }

  /** {@code window_start,key,count}: every value of every window, zeros included. */
  private static void printCsv(KeyedWindowCounts keyed, ZoneId zone, PrintStream out) {
    StringBuilder csv = new StringBuilder(1 << 16).append("window_start,key,count\n");
    for (int w = 0; w < keyed.windows().size(); w++) {
      String start = Format.time(keyed.windows().get(w).startMillis(), zone);
      for (int v = 0; v < keyed.values().size(); v++) {
        csv.append(start).append(',').append(keyed.values().get(v)).append(',')
            .append(keyed.count(w, v)).append('\n');
      }
      if (csv.length() > 1 << 20) {
        out.print(csv);
        csv.setLength(0);
      }
    }
    out.print(csv);
  }

  private static void printTable(KeyedWindowCounts keyed, ZoneId zone, PrintStream out) {
    int width = Math.max(keyed.key().length(),
        keyed.values().stream().mapToInt(String::length).max().orElse(0));
    String row = "%-29s %-" + width + "s %14s%n";
    out.printf(row, "window_start", keyed.key(), "lines");
    for (int w = 0; w < keyed.windows().size(); w++) {
      String start = Format.time(keyed.windows().get(w).startMillis(), zone);
      for (int v = 0; v < keyed.values().size(); v++) {
        out.printf(row, start, keyed.values().get(v), Format.count(keyed.count(w, v)));
      }
    }
    for (int v = 0; v < keyed.values().size(); v++) {
      out.printf(row, "total", keyed.values().get(v), Format.count(keyed.total(v)));
    }
  }

  static String describeDataset(RunPlan plan) {
    return describeDataset(plan, plan.lines());
  }

  /** The dataset and its lines {@code [firstIndex, firstIndex + lines)}, and the topic they are read from. */
  static String describeDataset(RunPlan plan, long lines) {
    var d = plan.config().dataset();
    String what = d.kind() + (d.mode() != null ? " " + d.mode().key() : "") + ", seed " + d.seed();
    return what + ", lines " + Format.count(plan.firstIndex()) + " to "
        + Format.count(plan.firstIndex() + lines) + " of " + Format.count(plan.dataset().size())
        + (d.published() == null ? "" : ", read from " + d.published());
  }

  static String describeSchedule(RunPlan plan) {
    ScheduleSpec s = plan.config().schedule();
    String d = Durations.format(Duration.ofMillis(plan.duration().toMillis()));
    return switch (s.kind()) {
      case ScheduleSpec.CONSTANT -> String.format(Locale.ROOT, "constant %s lines/s for %s", Format.rate(s.rate()), d);
      case ScheduleSpec.LADDER -> "ladder " + s.steps().stream().map(Format::rate).toList()
          + " lines/s, ramp " + Durations.format(s.ramp()) + ", hold " + Durations.format(s.hold()) + ": " + d;
      case ScheduleSpec.REPLAY -> String.format(Locale.ROOT, "replay at %sx the dataset's time: %s",
          s.speedup() == Math.rint(s.speedup()) ? String.valueOf((long) s.speedup()) : String.valueOf(s.speedup()), d);
      default -> "max (as fast as each backend takes it)";
    };
  }
}
