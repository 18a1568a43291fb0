package io.logbench.source;

import io.logbench.schedule.Schedule;
import io.logbench.schedule.Timeline;
import io.logbench.schedule.TimestampMode;

/** A test timeline in NOW mode: each line carries its due time on the schedule. */
final class NowTimeline implements Timeline {

  private static final long serialVersionUID = 1L;

  private final Schedule schedule;

  NowTimeline(Schedule schedule) {
    this.schedule = schedule;
  }

  @Override
  public TimestampMode mode() {
    return TimestampMode.NOW;
  }

  @Override
  public long lines() {
    return schedule.lines();
  }

  @Override
  public long lineMillis(long index, long datasetMillis, long runStartMillis) {
    return runStartMillis + schedule.dueNanos(index) / 1_000_000L;
  }

  @Override
  public long countBefore(long epochMillis, long runStartMillis) {
    long offsetNanos = (epochMillis - runStartMillis) * 1_000_000L - 1;
    return offsetNanos < 0 ? 0 : schedule.dueBy(offsetNanos);
  }
}
