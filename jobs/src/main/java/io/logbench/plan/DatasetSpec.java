package io.logbench.plan;

import io.logbench.dataset.nginx.NginxMonthDataset;
import java.time.Instant;

/**
 * The {@code dataset} block of a run file.
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
    double rate) {

  public static final String NGINX_MONTH = "nginx-month";
  public static final String APP_JSON = "app-json";
}
