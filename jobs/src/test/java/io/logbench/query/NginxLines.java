package io.logbench.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Consecutive nginx-month lines (seed 8, fast mode) for search tests: their batches, and the
 * answer a search of them must give, counted from the lines themselves (their time and their
 * stream's labels), not from the dataset's exact counts.
 */
public final class NginxLines {

  public static final NginxMonthDataset DATASET = new NginxMonthDataset(8, NginxMonthDataset.Mode.FAST);

  private final long first;
  private final int n;

  /** {@code n} lines from the first at or after {@code from} (ISO-8601 with an offset). */
  public NginxLines(String from, int n) {
    this.first = DATASET.countBefore(millis(from));
    this.n = n;
  }

  public static long millis(String iso) {
    return OffsetDateTime.parse(iso).toInstant().toEpochMilli();
  }

  /** The run of these lines, with id {@code runId}. */
  public RunContext run(String runId) {
    return new RunContext(runId, DATASET.streams(), DATASET, first);
  }

  /** The lines in batches of at most {@code size}, their dataset index as sequence id. */
  public List<LineBatch> batches(int size) {
    List<LineBatch> out = new ArrayList<>();
    LineCursor c = DATASET.cursor(first);
    for (long i = first; i < first + n; i += size) {
      LineBatch b = new LineBatch();
      b.reset(out.size(), i);
      for (long k = i; k < Math.min(first + n, i + size); k++) {
        c.next(b);
      }
      out.add(b);
    }
    return out;
  }

  /** Sends every batch and fails unless each was accepted whole. */
  public void sendAll(BatchSender sender) {
    for (LineBatch b : batches(1000)) {
      SendResult r = sender.send(b).join();
      if (r.accepted() != b.count()) {
        throw new AssertionError("A batch was not accepted whole: " + r);
      }
    }
  }

  /** A query by {@code key} (the dataset's values) over {@code [from, to)} in buckets of {@code bucket} ms. */
  public static KeyedQuery query(String key, String from, String to, long bucket) {
    return new KeyedQuery(key, DATASET.keyedCounts(key).values(), millis(from), millis(to), bucket);
  }

  /** What {@code q} must answer for these lines. */
  public KeyedAnswer expected(KeyedQuery q) {
    KeyedAnswer a = new KeyedAnswer(q);
    for (LineBatch b : batches(1000)) {
      for (int k = 0; k < b.count(); k++) {
        int bucket = q.bucketOf(Math.floorDiv(b.timestampNanos(k), 1_000_000L));
        if (bucket >= 0) {
          a.add(bucket, DATASET.streams().labels(b.stream(k)).get(q.key()), 1);
        }
      }
    }
    return a;
  }

  /**
   * Asserts what a backend holding all of these lines (and no other of the run) answers: every
   * sequence id once from {@code reader}, and every cell of the searches by status and by path
   * per hour over 00:00 to 02:00 and per 30 s over 00:59:30 to 01:01 (Sao Paulo) from {@code
   * search}, as the lines have them; {@code where} names the backend in messages.
   */
  public void assertIdsAndSearches(String where, io.logbench.count.CountReader reader, KeyedSearch search)
      throws java.io.IOException {
    List<LineBatch> all = batches(n);
    LineBatch b = all.get(0);
    long from = Math.floorDiv(b.timestampNanos(0), 1_000_000L);
    long to = Math.floorDiv(b.timestampNanos(n - 1), 1_000_000L) + 1;
    assertThat(reader.sequenceIds(from, to, 10 * n)).as("ids of %s", where)
        .containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.range(first, first + n).boxed().toList());
    for (String key : new String[] {"status", "path"}) {
      KeyedQuery hours = query(key, "2021-05-01T00:00:00-03:00", "2021-05-01T02:00:00-03:00", 3_600_000L);
      assertSameCells(search.search(hours), expected(hours));
      KeyedQuery halves = query(key, "2021-05-01T00:59:30-03:00", "2021-05-01T01:01:00-03:00", 30_000L);
      assertSameCells(search.search(halves), expected(halves));
    }
  }

  /** Asserts that {@code got} has every cell of {@code expected}, and no other. */
  public static void assertSameCells(KeyedAnswer got, KeyedAnswer expected) {
    Set<String> values = new LinkedHashSet<>(expected.values());
    values.addAll(got.values());
    assertThat(got.total()).as("lines answered").isEqualTo(expected.total());
    for (int k = 0; k < expected.query().buckets(); k++) {
      for (String v : values) {
        assertThat(got.count(k, v)).as("bucket %d, %s=%s", k, expected.query().key(), v)
            .isEqualTo(expected.count(k, v));
      }
    }
  }
}
