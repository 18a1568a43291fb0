package io.logbench.plan;

import io.logbench.config.ConfigException;
import io.logbench.dataset.Dataset;
import io.logbench.dataset.KeyedCounts;
import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.plan.DatasetSpec;
import io.logbench.plan.RunConfig;
import io.logbench.plan.ScheduleSpec;
import io.logbench.publish.Manifest;
import io.logbench.publish.PublishedTopic;
import io.logbench.schedule.ConstantRateSchedule;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.schedule.KeyedWindowCounts;
import io.logbench.schedule.LadderSchedule;
import io.logbench.schedule.ReplaySchedule;
import io.logbench.schedule.Schedule;
import io.logbench.schedule.Timeline;
import io.logbench.schedule.Timelines;
import io.logbench.schedule.UnpacedSchedule;
import io.logbench.schedule.WindowCount;
import io.logbench.schedule.WindowCounts;
import java.time.Duration;
import java.util.List;

/**
 * A run file made concrete: the dataset, the lines of it the run sends ({@code [firstIndex,
 * firstIndex + lines)}), the schedule and the timeline. Everything a job or a count needs
 * follows from it, and nothing in it depends on the wall clock but the run's start.
 */
public final class RunPlan {

  private final RunConfig config;
  private final Dataset dataset;
  private final long firstIndex;
  private final long datasetLines;
  private final Schedule schedule;
  private final Timeline timeline;

  private RunPlan(RunConfig config, Dataset dataset, long firstIndex, long datasetLines, Schedule schedule) {
    this.config = config;
    this.dataset = dataset;
    this.firstIndex = firstIndex;
    this.datasetLines = datasetLines;
    this.schedule = schedule;
    this.timeline = Timelines.of(config.timestamps(), dataset, firstIndex, schedule);
  }

  /**
   * The plan of a checked run file. For a dataset read back from Kafka the dataset is rebuilt from
   * its manifest's block (its times and counts are arithmetic, nothing is scanned) and checked
   * against the manifest's line range and first and last time.
   */
  public static RunPlan of(RunConfig config) {
    return of(config, null);
  }

  /**
   * How long a canary's schedule lasts: a century, as good as without end, and its due times
   * still fit a long of nanoseconds.
   */
  public static final Duration CANARY_SPAN = Duration.ofDays(36_525);

  /**
   * The plan of a canary's run file ({@link RunConfig#isCanary}): its app-json lines carry {@code
   * runId} in their body, and its schedule lasts {@link #CANARY_SPAN}.
   */
  public static RunPlan canary(RunConfig config, String runId) {
    if (!config.isCanary()) {
      throw new IllegalArgumentException("Run " + config.name() + " has no canary: block.");
    }
    return of(config, runId);
  }

  private static RunPlan of(RunConfig config, String runInBody) {
    DatasetSpec d = config.dataset();
    ScheduleSpec s = config.schedule();
    Dataset dataset;
    long first;
    long lines;
    if (DatasetSpec.NGINX_MONTH.equals(d.kind())) {
      dataset = new NginxMonthDataset(d.seed(), d.mode());
      first = dataset.countBefore(d.from().toEpochMilli());
      lines = dataset.countBefore(d.until().toEpochMilli()) - first;
    } else {
      first = 0;
      lines = d.lines() != null ? d.lines()
          : config.isCanary() ? ConstantRateSchedule.linesBefore(s.rate(), CANARY_SPAN.toNanos()) : scheduleBound(s);
      dataset = AppJsonDataset.builder()
          .runInBody(runInBody)
          .seed(d.seed())
          .lines(lines)
          .streams(d.streams())
          .startMillis(d.start().toEpochMilli())
          .rate((long) d.rate())
          .build();
    }
    if (d.published() != null) {
      checkManifest(d.published(), dataset, first, lines);
    }
    return new RunPlan(config, dataset, first, lines, schedule(s, dataset, first, lines));
  }

  /** The manifest's own figures must be what this logbench computes from its block. */
  private static void checkManifest(PublishedTopic topic, Dataset dataset, long first, long lines) {
    Manifest m = topic.manifest();
    if (lines == 0) {
      throw new ConfigException("dataset.topic: the manifest of topic " + topic.topic() + " says " + m.lines()
          + " lines, but its dataset block gives none here. Publish it again with this logbench (--overwrite).");
    }
    long[] computed = {first, lines, dataset.timestampMillis(first), dataset.timestampMillis(first + lines - 1),
        dataset.streams().size()};
    long[] stored = {m.firstIndex(), m.lines(), m.firstMillis(), m.lastMillis(), m.streams()};
    String[] names = {"firstIndex", "lines", "firstMillis", "lastMillis", "streams"};
    for (int i = 0; i < names.length; i++) {
      if (computed[i] != stored[i]) {
        throw new ConfigException("dataset.topic: the manifest of topic " + topic.topic() + " says " + names[i]
            + " " + stored[i] + ", but its dataset block gives " + computed[i]
            + " here: it was published by a logbench that makes this dataset differently."
            + " Publish it again with this logbench (--overwrite).");
      }
    }
  }

  /** Lines an app-json run has when only its schedule bounds it. */
  private static long scheduleBound(ScheduleSpec s) {
    if (ScheduleSpec.LADDER.equals(s.kind())) {
      return ladder(s, AppJsonDataset.MAX_LINES).ladderLines();
    }
    return constantLines(s, AppJsonDataset.MAX_LINES);
  }

  private static long constantLines(ScheduleSpec s, long lines) {
    if (s.duration() == null) {
      return lines;
    }
    // lines due strictly before the end of the duration, at most the dataset's
    return Math.min(lines, ConstantRateSchedule.linesBefore(s.rate(), s.duration().toNanos()));
  }

  private static LadderSchedule ladder(ScheduleSpec s, long lines) {
    List<Long> steps = s.steps().stream().map(Double::longValue).toList();
    return new LadderSchedule(steps, s.ramp(), s.hold(), lines);
  }

  private static Schedule schedule(ScheduleSpec s, Dataset dataset, long first, long lines) {
    return switch (s.kind()) {
      case ScheduleSpec.CONSTANT -> new ConstantRateSchedule(s.rate(), constantLines(s, lines));
      case ScheduleSpec.LADDER -> ladder(s, lines);
      case ScheduleSpec.REPLAY -> new ReplaySchedule(dataset, first, lines, s.speedup());
      default -> new UnpacedSchedule(lines);
    };
  }

  public RunConfig config() {
    return config;
  }

  public Dataset dataset() {
    return dataset;
  }

  /**
   * Lines of the dataset block (its slice, or app-json's length): what {@code publish} writes.
   * The run itself sends {@link #lines()}, which a schedule may cut shorter.
   */
  public long datasetLines() {
    return datasetLines;
  }

  /** The topic the run's lines are read back from, or null when the run makes them. */
  public PublishedTopic published() {
    return config.dataset().published();
  }

  /** Dataset index of the run's first line (its global sequence id). */
  public long firstIndex() {
    return firstIndex;
  }

  /** Lines the run sends. */
  public long lines() {
    return schedule.lines();
  }

  public Schedule schedule() {
    return schedule;
  }

  public Timeline timeline() {
    return timeline;
  }

  /** The schedule's length; zero when unpaced. */
  public Duration duration() {
    return Duration.ofNanos(schedule.durationNanos());
  }

  /** Exact expected counts of a run started at {@code runStartMillis}. */
  public ExpectedCounts expectedCounts(long runStartMillis) {
    return new ExpectedCounts(timeline, runStartMillis);
  }

  /**
   * Exact counts of the run's lines per value of {@code key} in each of {@code windows}, for a
   * run started at {@code runStartMillis}. The timeline turns each window bound into the number
   * of the run's lines before it (exact in every timestamp mode: timestamps never decrease with
   * the line index), so the windows become ranges of dataset lines, which the dataset counts by
   * key from its own draws.
   *
   * @param parallelism threads to count on
   * @throws IllegalArgumentException if the dataset does not count by {@code key}
   */
  public KeyedWindowCounts keyedCounts(
      String key, WindowCounts windows, long runStartMillis, int parallelism) {
    KeyedCounts byKey = dataset.keyedCounts(key);
    ExpectedCounts expected = expectedCounts(runStartMillis);
    List<WindowCount> rows = windows.windows();
    long[] bounds = new long[rows.size() + 1];
    for (int w = 0; w < rows.size(); w++) {
      bounds[w] = firstIndex + expected.indexBefore(rows.get(w).startMillis());
    }
    bounds[rows.size()] = firstIndex
        + (rows.isEmpty() ? 0 : expected.indexBefore(rows.get(rows.size() - 1).endMillis()));
    return new KeyedWindowCounts(key, byKey.values(), rows, byKey.count(bounds, parallelism));
  }

  /** Time of the run's first and last line plus 1 ms: the span its windows must cover. */
  public long[] span(long runStartMillis) {
    if (lines() == 0) {
      return new long[] {runStartMillis, runStartMillis};
    }
    long first = timeline.lineMillis(0, dataset.timestampMillis(firstIndex), runStartMillis);
    long lastIndex = lines() - 1;
    long last =
        timeline.lineMillis(lastIndex, dataset.timestampMillis(firstIndex + lastIndex), runStartMillis);
    return new long[] {first, last + 1};
  }
}
