package io.logbench.query;

import java.io.IOException;

/**
 * Answers a {@link KeyedQuery} in one backend's own language (LogQL, LogsQL, an Elasticsearch
 * aggregation, SPL, or a scan for backends without one), filtered to the run's lines, and split
 * to fit the backend's limits: the searches a user of that backend would run, so their answers
 * and their times can be compared with the exact answer and with each other.
 */
public interface KeyedSearch extends AutoCloseable {

  /** The backend's search language, e.g. {@code LogQL}. */
  String language();

  /**
   * The search as the backend is asked it, for reports: e.g. {@code sum by (status)
   * (count_over_time({job="nginx"} | logbench_run="..." [1h]))}; for a query split into pieces,
   * the first piece's.
   */
  String text(KeyedQuery query);

  /**
   * Runs {@code query}: every request its pieces need, one after another.
   *
   * @throws IOException when the backend does not answer, or answers something that is not a
   *     count per bucket and value (never a partial answer)
   */
  KeyedAnswer search(KeyedQuery query) throws IOException;

  /** Requests made so far (a scan counts one per pass). */
  long requests();

  @Override
  void close();
}
