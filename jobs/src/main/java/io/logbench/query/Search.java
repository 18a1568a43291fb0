package io.logbench.query;

import io.logbench.schedule.KeyedWindowCounts;

/**
 * One of the case study's searches over a run, with its exact answer: count by {@code key} per
 * bucket over a {@code scope} ({@value #DAY}: the run's first day, or {@value #RUN}: all of it).
 *
 * @param name e.g. {@code status-day-1h}
 * @param scope {@value #DAY} or {@value #RUN}
 * @param query the search, in no backend's language
 * @param exact the run's exact count per bucket and value, one window per bucket of the query
 */
public record Search(String name, String scope, KeyedQuery query, KeyedWindowCounts exact) {

  /** The run's first local day (cut to the run's buckets). */
  public static final String DAY = "day";
  /** The whole run. */
  public static final String RUN = "run";

  public Search {
    if (exact.windows().size() != query.buckets()) {
      throw new IllegalArgumentException("Search " + name + " has " + query.buckets() + " buckets but an exact"
          + " answer of " + exact.windows().size() + " windows.");
    }
  }

  public String key() {
    return query.key();
  }
}
