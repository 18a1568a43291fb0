package io.logbench.sink.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import io.logbench.count.internal.CountQueries;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lets an index's store size settle before it is read: {@code POST <index>/_flush}, then {@code
 * _stats} until no merge runs and nothing has changed for longer than the node caches its store
 * size.
 *
 * <p>Right after a load the index is still merging: a merge writes the merged segment before the
 * segments it replaces are deleted, so for a while the files hold both (on OpenSearch 2.19.6 the
 * quickstart hour's index went from 79 MB to 62 MB in the minutes after the run). And {@code
 * _stats/store} answers from a cache the node refreshes at most every {@code
 * index.store.stats_refresh_interval} (10 s by default): a read right after a merge ended answered
 * 115 MB for an index whose files held 62 MB. So the figure is taken as settled once {@code
 * merges.current} is 0 and none of the merge, refresh and flush totals nor the store size have
 * moved for longer than that interval: a cached size is then younger than the last change.
 */
final class EsStoreSettle {

  /** How often the stats are read while the index settles. */
  static final Duration POLL = Duration.ofMillis(250);
  /** The store size cache's lifetime when the index does not say ({@code index.store.stats_refresh_interval}). */
  static final Duration DEFAULT_STATS_CACHE = Duration.ofSeconds(10);
  static final String STATS_CACHE_SETTING = "index.store.stats_refresh_interval";

  /**
   * What the settling came to.
   *
   * @param done whether the index settled before the timeout
   * @param total store size of every shard copy, bytes, at the last read
   * @param primaries store size of the primaries, bytes, at the last read
   * @param mergesRunning merges running at the last read
   */
  record Outcome(boolean done, long total, long primaries, long mergesRunning) {}

  private EsStoreSettle() {}

  /**
   * Flushes {@code index} and waits up to {@code timeout} for its store size to settle; with a zero
   * timeout, reads the size as it stands (no flush).
   *
   * @throws IOException when the backend does not take the flush or answers the stats without a
   *     store size
   */
  static Outcome run(EsRequests requests, CountQueries http, String index, Duration timeout) throws IOException {
    if (timeout.isZero()) {
      JsonNode all = requests.get("/" + index + "/_stats/store,merge", "the store stats").path("_all");
      return new Outcome(false, bytes(all, "total", http, index), bytes(all, "primaries", http, index),
          all.path("total").path("merges").path("current").asLong());
    }
    CountQueries.Answer f = http.send(requests.request("/" + index + "/_flush")
        .POST(HttpRequest.BodyPublishers.noBody()).build(), "the flush (POST " + index + "/_flush)");
    if (f.status() != 200) {
      throw new IOException(http.backend() + " answered the flush of " + index + " with " + f.status() + ": "
          + f.shortText(300));
    }
    Duration still = statsCache(requests, index).plus(POLL);
    io.logbench.count.internal.StillPoll.Result<JsonNode> r = io.logbench.count.internal.StillPoll.await(
        () -> requests.get("/" + index + "/_stats/store,merge,refresh,flush", "the store stats").path("_all"),
        all -> {
          JsonNode total = all.path("total");
          return total.path("merges").path("current").asLong() != 0 ? null
              : total.path("merges").path("total").asLong() + "/" + total.path("refresh").path("total").asLong() + "/"
                  + total.path("flush").path("total").asLong() + "/" + total.path("store").path("size_in_bytes").asText();
        },
        still, POLL, timeout, index + "'s store size to settle");
    JsonNode all = r.last();
    return new Outcome(r.still(), bytes(all, "total", http, index), bytes(all, "primaries", http, index),
        all.path("total").path("merges").path("current").asLong());
  }

  private static long bytes(JsonNode all, String which, CountQueries http, String index) throws IOException {
    JsonNode n = all.path(which).path("store").path("size_in_bytes");
    if (!n.canConvertToLong()) {
      throw new IOException(http.backend() + " answered the store stats of " + index + " without _all." + which
          + ".store.size_in_bytes: " + io.logbench.sink.SendResult.bounded(all.toString()));
    }
    return n.asLong();
  }

  /**
   * The longest {@value #STATS_CACHE_SETTING} of the index's indices (set or default), or {@link
   * #DEFAULT_STATS_CACHE} when the backend does not say.
   */
  static Duration statsCache(EsRequests requests, String index) {
    JsonNode answer;
    try {
      answer = requests.get("/" + index + "/_settings/" + STATS_CACHE_SETTING + "?include_defaults=true&flat_settings=true",
          "the store stats cache setting");
    } catch (IOException e) {
      return DEFAULT_STATS_CACHE;
    }
    Duration longest = null;
    for (Iterator<JsonNode> it = answer.elements(); it.hasNext(); ) {
      JsonNode i = it.next();
      JsonNode v = i.path("settings").path(STATS_CACHE_SETTING);
      if (v.isMissingNode()) {
        v = i.path("defaults").path(STATS_CACHE_SETTING);
      }
      Duration d = timeValue(v.asText(""));
      if (d != null && (longest == null || d.compareTo(longest) > 0)) {
        longest = d;
      }
    }
    return longest == null ? DEFAULT_STATS_CACHE : longest;
  }

  private static final Pattern TIME_VALUE = Pattern.compile("(\\d+)(nanos|micros|ms|s|m|h|d)");

  /** An Elasticsearch time value ({@code 10s}, {@code 500ms}, {@code 1m}); null when it is none. */
  static Duration timeValue(String text) {
    Matcher m = TIME_VALUE.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      return null;
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "nanos" -> Duration.ofNanos(n);
      case "micros" -> Duration.ofNanos(n * 1_000);
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }
}
