package io.logbench.plan;

import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.publish.PublishedTopic;
import java.time.Instant;

/**
 * The {@code dataset} block of a run file. A {@code kind: kafka} block reads as the block its
 * topic's manifest names (kind, seed, slice: every line's time and every window's count follow
 * from it as for a built-in dataset), with {@link #published} saying that the lines themselves come
 * from the topic.
 *
 * @param kind {@code nginx-month} or {@code app-json}
 * @param mode nginx-month only: python-compatible or fast
 * @param seed the seed every draw follows
 * @param from start of the time slice (inclusive), or null for the dataset's start
 * @param until end of the time slice (exclusive), or null for the dataset's end
 * @param lines app-json only: number of lines, or null to take the schedule's
 * @param streams app-json only: number of streams
 * @param start app-json only: the dataset's own time of line 0
 * @param rate app-json only: the dataset's own rate, lines per second
 * @param published the topic the lines are read from ({@code kind: kafka}), or null to make them
 */
public record DatasetSpec(
    String kind,
    NginxMonthDataset.Mode mode,
    long seed,
    Instant from,
    Instant until,
    Long lines,
    int streams,
    Instant start,
    double rate,
    PublishedTopic published) {

  public static final String NGINX_MONTH = "nginx-month";
  public static final String APP_JSON = "app-json";
  /** The run file's kind of a dataset read back from a topic; the spec itself has its source's kind. */
  public static final String KAFKA = "kafka";

  /**
   * The block as a run file writes it, every default filled in, with {@code lines} the run's
   * (app-json): what a manifest stores, and reads back into the same spec.
   */
  public com.fasterxml.jackson.databind.node.ObjectNode block(long resolvedLines) {
    var b = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    b.put("kind", kind);
    if (NGINX_MONTH.equals(kind)) {
      b.put("mode", mode.key());
      b.put("seed", seed);
      b.put("from", java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(from.atZone(NginxMonthDataset.SCRIPT_ZONE)));
      b.put("until", java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(until.atZone(NginxMonthDataset.SCRIPT_ZONE)));
    } else {
      b.put("seed", seed);
      b.put("lines", resolvedLines);
      b.put("streams", streams);
      b.put("start", start.toString());
      b.put("rate", (long) rate);
    }
    return b;
  }

  /** The same dataset, its lines read from {@code topic}. */
  public DatasetSpec withPublished(PublishedTopic topic) {
    return new DatasetSpec(kind, mode, seed, from, until, lines, streams, start, rate, topic);
  }
}
