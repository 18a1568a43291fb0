package io.logbench.query;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs every search on every backend, one at a time (so no search's time includes another's
 * load), each repeated: the first run is reported apart as the cold one (caches empty, as the
 * seed's first click), then the median and the worst of the others. Every answer is compared
 * cell by cell with the exact answer; a backend that fails a search is reported with its error
 * and the next search runs.
 */
public final class QueryRunner {

  /** How many wrong cells of an answer are kept to name (all are counted). */
  public static final int KEEP_MISMATCHES = 20;

  /** A backend to search: its name and its search, which the runner closes. */
  public record Target(String backend, KeyedSearch search) {}

  private QueryRunner() {}

  /**
   * Runs {@code searches} on every target, {@code repeats} times each, and closes the targets.
   *
   * @param each called with each outcome as soon as it is known (for progress lines)
   */
  public static List<SearchOutcome> run(List<Target> targets, List<Search> searches, int repeats,
      Consumer<SearchOutcome> each) {
    if (repeats < 1) {
      throw new IllegalArgumentException("A search is repeated at least once, not " + repeats + " times.");
    }
    List<SearchOutcome> out = new ArrayList<>();
    try {
      for (Target t : targets) {
        for (Search s : searches) {
          SearchOutcome o = runOne(t, s, repeats);
          out.add(o);
          each.accept(o);
        }
      }
    } finally {
      for (Target t : targets) {
        t.search().close();
      }
    }
    return out;
  }

  static SearchOutcome runOne(Target t, Search s, int repeats) {
    KeyedSearch search = t.search();
    String text = search.text(s.query());
    long requestsBefore = search.requests();
    long[] nanos = new long[repeats];
    long cells = 0;
    long wrong = 0;
    List<Mismatch> mismatches = List.of();
    int runs = 0;
    String error = null;
    for (int r = 0; r < repeats; r++) {
      long t0 = System.nanoTime();
      KeyedAnswer answer;
      try {
        answer = search.search(s.query());
      } catch (IOException | RuntimeException e) {
        error = e.getMessage() == null ? e.toString() : e.getMessage();
        break;
      }
      nanos[r] = System.nanoTime() - t0;
      runs++;
      Comparison.Result c = Comparison.compare(t.backend(), s.name(), s.exact(), answer, KEEP_MISMATCHES);
      cells = Math.max(cells, c.cells());
      if (c.wrongCells() > wrong) {
        wrong = c.wrongCells();
      }
      if (mismatches.isEmpty() && !c.first().isEmpty()) {
        mismatches = c.first();
      }
    }
    long median = -1;
    long worst = -1;
    if (runs > 1) {
      long[] warm = Arrays.copyOfRange(nanos, 1, runs);
      Arrays.sort(warm);
      worst = warm[warm.length - 1];
      median = warm.length % 2 == 1 ? warm[warm.length / 2] : (warm[warm.length / 2 - 1] + warm[warm.length / 2]) / 2;
    }
    return new SearchOutcome(t.backend(), search.language(), s, text, runs, runs > 0 ? nanos[0] : -1, median, worst,
        search.requests() - requestsBefore, cells, wrong, mismatches, error);
  }
}
