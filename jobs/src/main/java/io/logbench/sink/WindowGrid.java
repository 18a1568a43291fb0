package io.logbench.sink;

import java.io.Serializable;
import java.time.Instant;
import java.time.ZoneId;

/**
 * Where windows start: every {@code sizeMillis} from an anchor (a local midnight), so windows
 * that divide a day line up with the days of the run's zone. Windows are half-open.
 */
public record WindowGrid(long anchorMillis, long sizeMillis) implements Serializable {

  /** Windows of {@code sizeMillis} aligned to midnight in {@code zone} (of the day of {@code nearMillis}). */
  public static WindowGrid aligned(long sizeMillis, ZoneId zone, long nearMillis) {
    long midnight =
        Instant.ofEpochMilli(nearMillis).atZone(zone).toLocalDate().atStartOfDay(zone).toInstant().toEpochMilli();
    return new WindowGrid(midnight, sizeMillis);
  }

  /** Start of the window holding {@code epochMillis}. */
  public long windowStart(long epochMillis) {
    return anchorMillis + Math.floorDiv(epochMillis - anchorMillis, sizeMillis) * sizeMillis;
  }
}
