package io.logbench.layout;

/**
 * The seed layout's separators as a state machine: the lines of a minute are joined by a
 * newline and the minutes of a file by a newline, so an empty minute leaves an empty line. Both
 * the chunk writer of the {@code dataset} command and the files backend ask it how many newlines
 * go before each line, so their bytes cannot drift apart.
 *
 * <p>Minutes are any increasing numbering (chunk-relative or epoch minutes). A line whose minute
 * is before the current one is treated as part of the current minute.
 */
public final class MinuteJoiner {

  private long minute;
  private boolean hasLine;

  /** A joiner at {@code firstMinute} of a file, before its first line. */
  public MinuteJoiner(long firstMinute) {
    this(firstMinute, false);
  }

  /** A joiner restored from {@link #minute()} and {@link #hasLine()}. */
  public MinuteJoiner(long minute, boolean hasLine) {
    this.minute = minute;
    this.hasLine = hasLine;
  }

  /** Moves to {@code next} without a line and returns the newlines that closes the minutes between. */
  public int advanceTo(long next) {
    if (next <= minute) {
      return 0;
    }
    long n = next - minute;
    minute = next;
    hasLine = false;
    return Math.toIntExact(n);
  }

  /** Newlines to write before a line of minute {@code lineMinute}. */
  public int line(long lineMinute) {
    int n = advanceTo(lineMinute);
    if (n == 0 && hasLine) {
      n = 1;
    }
    hasLine = true;
    return n;
  }

  /** The current minute. */
  public long minute() {
    return minute;
  }

  /** Whether the current minute has a line already. */
  public boolean hasLine() {
    return hasLine;
  }
}
