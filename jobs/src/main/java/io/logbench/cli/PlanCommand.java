package io.logbench.cli;

import io.logbench.config.Durations;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.plan.ScheduleSpec;
import io.logbench.schedule.TimestampMode;
import io.logbench.schedule.WindowCount;
import io.logbench.schedule.WindowCounts;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code plan CONFIG [--window DURATION] [--csv] [--start TIME]}: what a run would send, and the
 * exact number of lines in each window, from arithmetic over the dataset (nothing is generated
 * except, for the byte total, the lines' sizes).
 */
@Command(name = "plan", mixinStandardHelpOptions = true, versionProvider = Versions.class,
    description = "Total lines and bytes, duration, and the exact line count of every window"
        + " (arithmetic over the dataset, nothing sent).")
final class PlanCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "CONFIG", description = "The run file.")
  Path file;

  @Option(names = "--window", paramLabel = "DURATION",
      description = "Window size (default: the run file's); must divide a day.")
  Duration window;

  @Option(names = "--csv", description = "Print window_start,lines as CSV only.")
  boolean csv;

  @Option(names = "--start", paramLabel = "TIME",
      description = "The run's start, for compressed and now timestamps (default: the next minute).")
  Instant start;

  private final PrintStream out;

  PlanCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
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
    out.println();
    out.printf("%-29s %14s%n", "window_start", "lines");
    for (WindowCount w : windows.windows()) {
      out.printf("%-29s %14s%n", Format.time(w.startMillis(), config.zone()), Format.count(w.count()));
    }
    out.printf("%-29s %14s%n", "total", Format.count(windows.total()));
    return 0;
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
