package io.logbench.schedule;

/** Which time a line carries to the backends. */
public enum TimestampMode {
  /** The dataset's own time (for nginx-month, May 2021). */
  ORIGINAL("original"),
  /** The dataset's span mapped linearly onto the run's span. */
  COMPRESSED("compressed"),
  /** The time the schedule sends the line at (its due time), like the k6 script's Date.now(). */
  NOW("now");

  private final String key;

  TimestampMode(String key) {
    this.key = key;
  }

  /** The name used in config files. */
  public String key() {
    return key;
  }

  /** The mode named {@code key}, or null. */
  public static TimestampMode fromKey(String key) {
    for (TimestampMode m : values()) {
      if (m.key.equals(key)) {
        return m;
      }
    }
    return null;
  }
}
