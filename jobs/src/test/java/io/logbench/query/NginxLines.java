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
