package io.logbench.publish;

import io.logbench.schedule.Schedule;
import java.io.Serializable;

/**
 * When a replayed line is due: as for a generated run, run line {@code i = seq - firstSeq}
 * belongs to batch {@code i / batchSize}, and every line of a batch is due when the batch's first
 * line is ({@link Schedule#dueNanos} of it, after the run's start).
 *
 * @param firstSeq sequence id of the run's first line
 * @param batchSize lines per batch
 * @param schedule the run's schedule, indexed by run line
 * @param runStartMillis the run's start, epoch milliseconds
 */
public record Pacing(long firstSeq, int batchSize, Schedule schedule, long runStartMillis) implements Serializable {

  public Pacing {
    if (batchSize < 1) {
      throw new IllegalArgumentException("A batch holds at least 1 line, not " + batchSize + ".");
    }
  }

  /** Batch id of the line with sequence id {@code seq}. */
  public long batchOf(long seq) {
    return (seq - firstSeq) / batchSize;
  }

  /** Run-relative index of batch {@code b}'s first line. */
  public long batchStart(long b) {
    return b * batchSize;
  }

  /** Lines in batch {@code b}. */
  public int batchLines(long b) {
    return (int) (Math.min(batchStart(b) + batchSize, schedule.lines()) - batchStart(b));
  }

  /** Epoch nanoseconds at which batch {@code b} is due. */
  public long batchDueNanos(long b) {
    return runStartMillis * 1_000_000L + schedule.dueNanos(batchStart(b));
  }

  /** Epoch nanoseconds at which the line with sequence id {@code seq} is due (its batch's time). */
  public long dueNanos(long seq) {
    return batchDueNanos(batchOf(seq));
  }

  public boolean paced() {
    return schedule.paced();
  }
}
