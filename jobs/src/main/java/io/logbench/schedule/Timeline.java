package io.logbench.schedule;

import java.io.Serializable;

/**
 * The timestamp each line carries to the backends (see {@link TimestampMode}), and the exact
 * number of lines before any instant, from which every window's expected count follows.
 *
 * <p>Timestamps are non-decreasing in the line index. {@code runStartMillis} is the epoch
 * millisecond the run started at; modes that do not depend on it ignore it.
 */
public interface Timeline extends Serializable {

  /** The mode these timestamps follow. */
  TimestampMode mode();

  /** Lines in the run. */
  long lines();

  /**
   * Timestamp of line {@code index}, whose own dataset time is {@code datasetMillis}. The index
   * is run-relative (0 for the run's first line, like {@link Schedule#dueNanos}), not the
   * dataset's.
   */
  long lineMillis(long index, long datasetMillis, long runStartMillis);

  /** Number of the run's lines whose timestamp is strictly before {@code epochMillis}. */
  long countBefore(long epochMillis, long runStartMillis);
}
