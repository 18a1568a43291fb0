package io.logbench.pacing;

import java.time.Instant;

/** Reads the wall clock in epoch nanoseconds (microsecond precision on Linux), for pacing. */
public final class WallClock {

  private WallClock() {}

  public static long epochNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }
}
