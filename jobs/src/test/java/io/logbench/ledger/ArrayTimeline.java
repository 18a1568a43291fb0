package io.logbench.ledger;

import io.logbench.schedule.Timeline;
import io.logbench.schedule.TimestampMode;
import java.util.Arrays;

/** A timeline of lines at the given (sorted) epoch milliseconds, for ledger tests. */
final class ArrayTimeline implements Timeline {

  private static final long serialVersionUID = 1L;

  private final long[] millis;

  ArrayTimeline(long... millis) {
    this.millis = millis.clone();
    Arrays.sort(this.millis);
  }

  @Override
  public TimestampMode mode() {
    return TimestampMode.ORIGINAL;
  }

  @Override
  public long lines() {
    return millis.length;
  }

  @Override
  public long lineMillis(long index, long datasetMillis, long runStartMillis) {
    return millis[(int) index];
  }

  @Override
  public long countBefore(long epochMillis, long runStartMillis) {
    int lo = 0;
    int hi = millis.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (millis[mid] < epochMillis) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
