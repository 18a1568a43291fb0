package io.logbench.sink.splunk;

import com.fasterxml.jackson.databind.JsonNode;
import io.logbench.query.KeyedAnswer;
import io.logbench.query.KeyedQuery;
import io.logbench.query.KeyedSearch;
import java.io.IOException;

/**
 * The keyed search of a Splunk index, in SPL: {@code | tstats count where index=<idx>
 * logbench_run=<id> by _time, <key> span=<N>s} as an export search over {@code [earliest,
 * latest)}, through the count reader's search endpoint and credentials. tstats reads indexed
 * fields, and every stream label is one: the HEC sender puts the labels in each event's {@code
 * fields}. The answer is one row per non-empty span and value, {@code {"_time":
 * "2021-05-01T03:00:00.000+00:00","status":"200","count":"1234"}}.
 *
 * <p><b>Buckets.</b> As the count reader's windows: spans start on multiples of the span from
 * the epoch, so buckets off that grid are counted as the sum of the spans of {@code gcd(bucket,
 * its offset)} seconds inside them. Buckets and their start must be whole seconds.
 *
 * <p><b>Limits.</b> One search answers at most {@value #MAX_ROWS} spans times values; longer
 * ranges are split into pieces of whole buckets.
 */
public final class SplunkSearch implements KeyedSearch {

  /** The most (span, value) rows one search asks for. */
  public static final int MAX_ROWS = 200_000;

  private final SplunkCountReader reader;

  SplunkSearch(SplunkCountReader reader) {
    this.reader = reader;
  }

  @Override
  public String language() {
    return "SPL";
  }

  @Override
  public String text(KeyedQuery q) {
    return spl(q);
  }

  String spl(KeyedQuery q) {
    return "| tstats count where index=" + reader.index() + reader.runTerm("=") + " by _time, " + q.key() + " span="
        + span(q) + "s";
  }

  /** The span in seconds: the bucket, or the largest divisor of it and its offset from the epoch. */
  static long span(KeyedQuery q) {
    if (q.bucketMillis() % 1000 != 0 || q.fromMillis() % 1000 != 0) {
      throw new IllegalArgumentException("Splunk searches whole seconds: buckets of " + q.bucketMillis()
          + " ms from " + q.fromMillis() + " ms are not.");
    }
    long bucket = q.bucketMillis() / 1000;
    long phase = Math.floorMod(q.fromMillis() / 1000, bucket);
    return phase == 0 ? bucket : SplunkCountReader.gcd(bucket, phase);
  }

  @Override
  public KeyedAnswer search(KeyedQuery q) throws IOException {
    KeyedAnswer answer = new KeyedAnswer(q);
    long span = span(q);
    long perBucket = q.bucketMillis() / 1000 / span * Math.max(1, q.values().size());
    int per = (int) Math.max(1, MAX_ROWS / perBucket);
    String spl = spl(q);
    for (int first = 0; first < q.buckets(); first += per) {
      int n = Math.min(per, q.buckets() - first);
      long from = q.bucketStart(first);
      long to = q.bucketStart(first + n);
      String what = "the search by " + q.key() + " for [" + from + ", " + to + ")";
      read(reader.export(spl, from / 1000, to / 1000, what), q, span, first, n, what, answer);
    }
    return answer;
  }

  void read(Iterable<JsonNode> rows, KeyedQuery q, long span, int first, int n, String what, KeyedAnswer answer)
      throws IOException {
    for (JsonNode row : rows) {
      long t = reader.time(row.path("_time"), what);
      int k = q.bucketOf(t);
      long count = row.path("count").asLong(-1);
      if (k < first || k >= first + n || Math.floorMod(t, span * 1000) != 0 || count < 0) {
        throw new IOException(reader.backend() + " answered a row " + row + " that is not a " + span
            + " s span of " + what + ".");
      }
      JsonNode value = row.path(q.key());
      answer.add(k, value.isMissingNode() || value.isNull() ? "" : value.asText(), count);
    }
  }

  @Override
  public long requests() {
    return reader.stats().requests();
  }

  @Override
  public void close() {
    reader.close();
  }
}
