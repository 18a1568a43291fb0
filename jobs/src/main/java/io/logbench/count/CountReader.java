package io.logbench.count;

import java.io.IOException;
import java.util.List;

/**
 * Counts what one backend holds, window by window, with the backend's own bucketed count query
 * (Loki {@code count_over_time}, VictoriaLogs {@code hits}, Elasticsearch {@code date_histogram},
 * Splunk {@code tstats}, ...), mapped exactly onto half-open windows {@code [start, end)} and
 * split to fit the backend's limits: never one request per window.
 *
 * <p>Only the lines of the run are counted (the reader filters by the run's streams or labels).
 */
public interface CountReader extends AutoCloseable {

  /**
   * Lines held in each window {@code [from + k*size, from + (k+1)*size)} for the windows that
   * start before {@code toMillis}; {@code fromMillis} and {@code toMillis} are multiples of the
   * window size from some anchor, and {@code toMillis - fromMillis} a multiple of it.
   *
   * @throws IOException when the backend does not answer, or answers something that is not a
   *     count (the verifier then reports the windows as PENDING, never OK)
   */
  long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException;

  /**
   * Sequence ids of the lines held in {@code [fromMillis, toMillis)}, at most {@code limit} of
   * them, for drill-down into a MISSING or DUPLICATE window (a repeated id appears as often as
   * it is held).
   */
  List<Long> sequenceIds(long fromMillis, long toMillis, int limit) throws IOException;

  /**
   * Whether each read passes over everything the backend holds (a topic, day files) whatever its
   * time range, so that one read of a wide range costs no more than one of a narrow range; false
   * for readers whose backend searches by time (the default).
   */
  default boolean scans() {
    return false;
  }

  /** Time spent answering count queries so far, and how many requests were made (for reports). */
  QueryStats stats();

  @Override
  void close();

  /** Requests made and the time they took. */
  record QueryStats(long requests, long nanos) {}
}
