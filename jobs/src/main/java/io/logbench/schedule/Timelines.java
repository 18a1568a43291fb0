package io.logbench.schedule;

import io.logbench.dataset.Dataset;
import java.util.Objects;

/** Makes the {@link Timeline} of a run from its timestamp mode, dataset, first line and schedule. */
public final class Timelines {

  private Timelines() {}

  /**
   * The timeline of a run that sends dataset lines {@code [firstIndex, firstIndex +
   * schedule.lines())} on {@code schedule}, with timestamps in {@code mode}.
   *
   * @throws IllegalArgumentException if {@code now} or {@code compressed} is asked of an unpaced
   *     schedule (its lines have no send time to take), or the lines are not within the dataset
   */
  public static ScheduledTimeline of(
      TimestampMode mode, Dataset dataset, long firstIndex, Schedule schedule) {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(dataset, "dataset");
    Objects.requireNonNull(schedule, "schedule");
    if (mode != TimestampMode.ORIGINAL && !schedule.paced()) {
      throw new IllegalArgumentException(
          "Timestamp mode '" + mode.key() + "' needs a paced schedule, but " + schedule
              + " sends lines as fast as the backend takes them, so they have no scheduled time;"
              + " use timestamps 'original' or a paced schedule.");
    }
    long lines = schedule.lines();
    if (firstIndex < 0 || firstIndex > dataset.size() - lines) {
      throw new IllegalArgumentException(
          "A run of " + lines + " lines from line " + firstIndex + " does not fit in dataset "
              + dataset.name() + " of " + dataset.size() + " lines.");
    }
    return new ScheduledTimeline(mode, dataset, firstIndex, schedule);
  }
}
