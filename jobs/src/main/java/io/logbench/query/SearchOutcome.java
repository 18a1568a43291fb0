package io.logbench.query;

import java.util.List;

/**
 * What one search did on one backend, over its repetitions: its times (the first run apart, as
 * the cold one; the median and worst of the others), its requests, and how its answers compare
 * with the exact answer.
 *
 * @param backend the backend's name
 * @param language the backend's search language
 * @param search the search
 * @param text the search as the backend was asked it
 * @param runs repetitions made (fewer than asked when one failed)
 * @param coldNanos time of the first run
 * @param medianNanos median time of the runs after the first, or -1 when there were none
 * @param worstNanos longest time of the runs after the first, or -1 when there were none
 * @param requests requests (or scan passes) of all the runs
 * @param cells cells of one answer (buckets times values)
 * @param wrongCells wrong cells of the worst answer
 * @param mismatches the first wrong cells of the first wrong answer
 * @param error why the search failed (a full sentence), or null
 */
public record SearchOutcome(
    String backend, String language, Search search, String text, int runs, long coldNanos, long medianNanos,
    long worstNanos, long requests, long cells, long wrongCells, List<Mismatch> mismatches, String error) {

  /** The outcome's status in queries.csv. */
  public enum Status { OK, WRONG, FAILED }

  public SearchOutcome {
    mismatches = List.copyOf(mismatches);
  }

  public Status status() {
    return error != null ? Status.FAILED : wrongCells > 0 ? Status.WRONG : Status.OK;
  }
}
