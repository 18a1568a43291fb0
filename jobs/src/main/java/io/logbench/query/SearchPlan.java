package io.logbench.query;

import io.logbench.config.Durations;
import io.logbench.schedule.KeyedWindowCounts;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The searches seed 004 ran by hand, for a run: for each key (such as {@code status} and {@code
 * path}), count per hour over the run's first day and over the whole run (Splunk's {@code
 * timechart span=1h}, Kibana's hourly date histogram), and per 30 seconds over the first day
 * (what Grafana's {@code $__interval} makes of a day in a Loki panel). Buckets are aligned to
 * midnight in the run's zone, and cover the run's span; the day is cut to the run's buckets, so a
 * run shorter than a day has the same day and run searches.
 */
public final class SearchPlan {

  /** The buckets of the hourly searches. */
  public static final Duration HOUR = Duration.ofHours(1);
  /** The buckets of the fine search over a day. */
  public static final Duration FINE = Duration.ofSeconds(30);

  /** The exact counts by {@code key} of the run's lines in buckets of {@code [from, to)}. */
  @FunctionalInterface
  public interface ExactCounts {
    KeyedWindowCounts count(String key, long fromMillis, long toMillis, long bucketMillis);
  }

  private SearchPlan() {}

  /**
   * The searches of a run whose lines span {@code [spanFrom, spanTo)}, in order: per key, the day
   * at 1h, the run at 1h, the day at 30s.
   *
   * @param keys the keys to count by (stream labels the dataset counts exactly)
   */
  public static List<Search> of(List<String> keys, long spanFrom, long spanTo, ZoneId zone, ExactCounts exact) {
    List<Search> out = new ArrayList<>();
    ZonedDateTime midnight = Instant.ofEpochMilli(spanFrom).atZone(zone).toLocalDate().atStartOfDay(zone);
    long dayEnd = midnight.plusDays(1).toInstant().toEpochMilli();
    long anchor = midnight.toInstant().toEpochMilli();
    for (String key : keys) {
      out.add(search(key, Search.DAY, anchor, spanFrom, Math.min(spanTo, dayEnd), HOUR, exact));
      out.add(search(key, Search.RUN, anchor, spanFrom, spanTo, HOUR, exact));
      out.add(search(key, Search.DAY, anchor, spanFrom, Math.min(spanTo, dayEnd), FINE, exact));
    }
    return out;
  }

  private static Search search(String key, String scope, long anchor, long from, long to, Duration bucket,
      ExactCounts exact) {
    long size = bucket.toMillis();
    long a = anchor + Math.floorDiv(from - anchor, size) * size;
    long b = to <= from ? a : anchor + Math.floorDiv(to - anchor + size - 1, size) * size;
    KeyedWindowCounts counts = exact.count(key, a, b, size);
    KeyedQuery q = new KeyedQuery(key, counts.values(), a, b, size);
    return new Search(key + "-" + scope + "-" + Durations.format(bucket), scope, q, counts);
  }
}
