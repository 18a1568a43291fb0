package io.logbench.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.schedule.KeyedWindowCounts;
import io.logbench.schedule.WindowCount;
import java.io.IOException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Cell-by-cell comparison, the search plan's buckets, and the runner's repetitions and times. */
class ComparisonTest {

  private static final long T0 = 1_619_838_000_000L; // 2021-05-01T00:00:00-03:00
  private static final long HOUR = 3_600_000L;
  private static final ZoneId SAO_PAULO = ZoneId.of("America/Sao_Paulo");

  private static KeyedWindowCounts exact(long from, int buckets, long size) {
    List<WindowCount> windows = new ArrayList<>();
    long[][] counts = new long[buckets][];
    for (int k = 0; k < buckets; k++) {
      counts[k] = new long[] {10 + k, 1};
      windows.add(new WindowCount(from + k * size, from + (k + 1) * size, 11 + k));
    }
    return new KeyedWindowCounts("status", List.of("200", "404"), windows, counts);
  }

  private static KeyedAnswer right(KeyedQuery q) {
    KeyedAnswer a = new KeyedAnswer(q);
    for (int k = 0; k < q.buckets(); k++) {
      a.add(k, "200", 10 + k);
      a.add(k, "404", 1);
    }
    return a;
  }

  @Test
  void everyCellIsComparedAndAWrongOneIsNamed() {
    KeyedQuery q = new KeyedQuery("status", List.of("200", "404"), T0, T0 + 3 * HOUR, HOUR);
    KeyedAnswer a = right(q);
    assertThat(Comparison.compare("loki", "status-run-1h", exact(T0, 3, HOUR), a, 5).wrongCells()).isZero();

    a.add(1, "404", -1);
    a.add(2, "500", 2); // a value the dataset never makes: expected 0
    Comparison.Result r = Comparison.compare("loki", "status-run-1h", exact(T0, 3, HOUR), a, 5);
    assertThat(r.cells()).isEqualTo(3 * 3);
    assertThat(r.wrongCells()).isEqualTo(2);
    assertThat(r.first()).containsExactly(
        new Mismatch("loki", "status-run-1h", T0 + HOUR, HOUR, "status", "404", 1, 0),
        new Mismatch("loki", "status-run-1h", T0 + 2 * HOUR, HOUR, "status", "500", 0, 2));
    assertThat(r.first().get(0).sentence(SAO_PAULO)).isEqualTo("Backend loki answered 0 for status=404 in the"
        + " bucket starting 2021-05-01T01:00:00-03:00 of search status-run-1h, where the run has exactly 1.");
  }

  @Test
  void planCoversTheSpanInZoneAlignedBucketsAndCutsTheDayToTheRun() {
    List<long[]> asked = new ArrayList<>();
    List<Search> s = SearchPlan.of(List.of("status"), T0 + 55 * 60_000L, T0 + 2 * 86_400_000L + 5 * 60_000L,
        SAO_PAULO, (key, a, b, size) -> {
          asked.add(new long[] {a, b, size});
          return exact(a, (int) ((b - a) / size), size);
        });
    assertThat(s).extracting(Search::name).containsExactly("status-day-1h", "status-run-1h", "status-day-30s");
    assertThat(s.get(0).query().fromMillis()).isEqualTo(T0);
    assertThat(s.get(0).query().toMillis()).as("the first day").isEqualTo(T0 + 86_400_000L);
    assertThat(s.get(1).query().toMillis()).as("the run, to the hour after its last line")
        .isEqualTo(T0 + 2 * 86_400_000L + HOUR);
    assertThat(s.get(2).query().fromMillis()).isEqualTo(T0 + 55 * 60_000L);
    assertThat(s.get(2).query().buckets()).isEqualTo((86_400_000 - 55 * 60_000) / 30_000);
  }

  @Test
  void runnerReportsTheFirstRunApartAndTheMedianAndWorstOfTheOthers() {
    KeyedQuery q = new KeyedQuery("status", List.of("200", "404"), T0, T0 + 2 * HOUR, HOUR);
    Search search = new Search("status-run-1h", Search.RUN, q, exact(T0, 2, HOUR));
    long[] sleeps = {40, 5, 1, 25, 10};
    AtomicInteger calls = new AtomicInteger();
    KeyedSearch fake = new KeyedSearch() {
      @Override
      public String language() {
        return "fake";
      }

      @Override
      public String text(KeyedQuery query) {
        return "count";
      }

      @Override
      public KeyedAnswer search(KeyedQuery query) throws IOException {
        long until = System.nanoTime() + sleeps[calls.getAndIncrement()] * 1_000_000L;
        while (System.nanoTime() < until) {
          Thread.onSpinWait();
        }
        KeyedAnswer a = right(query);
        if (calls.get() == 4) {
          a.add(0, "200", 1); // the fourth answer is wrong
        }
        return a;
      }

      @Override
      public long requests() {
        return calls.get();
      }

      @Override
      public void close() {}
    };
    List<SearchOutcome> out = QueryRunner.run(List.of(new QueryRunner.Target("fake", fake)), List.of(search), 5,
        o -> {});
    SearchOutcome o = out.get(0);
    assertThat(o.runs()).isEqualTo(5);
    assertThat(o.requests()).isEqualTo(5);
    assertThat(o.coldNanos()).isGreaterThanOrEqualTo(40_000_000L);
    // the warm runs took at least 5, 1, 25 and 10 ms: a median of at least 7.5, a worst of at
    // least 25 (lower bounds only: a loaded machine only makes them longer)
    assertThat(o.medianNanos()).isGreaterThanOrEqualTo(7_500_000L).isLessThanOrEqualTo(o.worstNanos());
    assertThat(o.worstNanos()).isGreaterThanOrEqualTo(25_000_000L);
    assertThat(o.status()).isEqualTo(SearchOutcome.Status.WRONG);
    assertThat(o.wrongCells()).isEqualTo(1);
    assertThat(o.mismatches()).containsExactly(new Mismatch("fake", "status-run-1h", T0, HOUR, "status", "200", 10, 11));
  }
}
