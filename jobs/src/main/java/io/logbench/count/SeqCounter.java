package io.logbench.count;

import io.logbench.count.CountReader.QueryStats;
import java.io.IOException;
import java.util.List;

/**
 * Counts one run's lines in a backend by the sequence id each line carries in its body, not by the
 * time the backend files it under: the count side of a pipeline, where an agent between logbench
 * and the backend may rewrite the record, add labels or stamp its own read time. A line is the
 * run's when its body (or the fields the agent parsed from it) says {@code logbench_run} is the
 * run's id, and its id is its {@code logbench_seq}. The time range only bounds the search: it must
 * be broad enough to hold every line of the asked ids however late the agent delivered them.
 */
public interface SeqCounter extends AutoCloseable {

  /**
   * Lines held whose id is in {@code [bounds[k], bounds[k + 1])}, for each {@code k} below {@code
   * bounds.length - 1}, among the lines filed in {@code [fromMillis, toMillis)}; {@code bounds}
   * is ascending.
   *
   * @throws IOException when the backend does not answer, or answers something that is not a count
   */
  long[] counts(long[] bounds, long fromMillis, long toMillis) throws IOException;

  /**
   * Ids of the lines held with an id in {@code [firstId, endId)} filed in {@code [fromMillis,
   * toMillis)}, at most {@code limit} of them (a repeated id as often as it is held).
   */
  List<Long> sequenceIds(long firstId, long endId, long fromMillis, long toMillis, int limit) throws IOException;

  /** Requests made and the time they took. */
  QueryStats stats();

  @Override
  void close();

  /**
   * {@code runId}, which a counter by sequence id needs (it recognises the run's lines by it);
   * fails naming {@code backend} without one.
   */
  static String requireRun(String backend, String runId) {
    if (runId == null) {
      throw new IllegalArgumentException("Backend " + backend + " counts a pipeline's lines by their run id,"
          + " which the run has none of.");
    }
    return runId;
  }
}
