package io.logbench.verify;

import io.logbench.count.CountReader.QueryStats;
import java.io.Serializable;

/**
 * What a backend's check emits: a final verdict (with its drill-down), or, last, the backend's
 * totals and query statistics.
 *
 * @param result a final verdict, or null in the last event
 * @param stats the reader's requests and time so far
 */
public record VerifyEvent(String backend, BackendChecker.Result result, QueryStats stats, boolean last)
    implements Serializable {

  private static final long serialVersionUID = 1L;
}
