package io.logbench.count.internal;

/**
 * Checks the arguments of {@code CountReader.counts} and names the windows: {@code n} windows of
 * {@code size} from {@code from}, the last ending at {@code to}.
 */
public record WindowRange(long from, long to, long size, int n) {

  /** The most windows one {@code counts} call may ask for. */
  public static final int MAX_WINDOWS = 50_000_000;

  public static WindowRange of(long fromMillis, long toMillis, long windowMillis) {
    if (windowMillis <= 0) {
      throw new IllegalArgumentException("The window size must be positive, got " + windowMillis + " ms.");
    }
    if (toMillis < fromMillis) {
      throw new IllegalArgumentException(
          "The end of the counted range (" + toMillis + ") is before its start (" + fromMillis + ").");
    }
    if ((toMillis - fromMillis) % windowMillis != 0) {
      throw new IllegalArgumentException(
          "The counted range [" + fromMillis + ", " + toMillis + ") is not a whole number of "
              + windowMillis + " ms windows.");
    }
    long n = (toMillis - fromMillis) / windowMillis;
    if (n > MAX_WINDOWS) {
      throw new IllegalArgumentException(
          "Counting " + n + " windows at once is more than " + MAX_WINDOWS + "; ask for fewer.");
    }
    return new WindowRange(fromMillis, toMillis, windowMillis, (int) n);
  }

  /** Start of window {@code k}. */
  public long start(long k) {
    return from + k * size;
  }

  /** The window holding {@code epochMillis}, or -1 when it is outside {@code [from, to)}. */
  public int indexOf(long epochMillis) {
    if (epochMillis < from || epochMillis >= to) {
      return -1;
    }
    return (int) ((epochMillis - from) / size);
  }
}
