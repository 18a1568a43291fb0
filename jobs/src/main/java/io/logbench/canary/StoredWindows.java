package io.logbench.canary;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * The windows a canary verified (OK or REPLAYED) and how many lines each held then, for spot
 * checks: two parallel arrays sorted by window start, appended to as windows become final (in
 * order, nearly always) and cut from the front past the retention, so a week of one-minute
 * windows costs 160 KB, not a map entry per window. Not thread-safe.
 */
final class StoredWindows {

  private long[] starts = new long[64];
  private long[] held = new long[64];
  private int size;

  int size() {
    return size;
  }

  long start(int i) {
    return starts[i];
  }

  long held(int i) {
    return held[i];
  }

  /** Records (or replaces) window {@code start} holding {@code lines}. */
  void put(long start, long lines) {
    int i = Arrays.binarySearch(starts, 0, size, start);
    if (i >= 0) {
      held[i] = lines;
      return;
    }
    int at = -i - 1;
    if (size == starts.length) {
      starts = Arrays.copyOf(starts, size * 2);
      held = Arrays.copyOf(held, size * 2);
    }
    System.arraycopy(starts, at, starts, at + 1, size - at);
    System.arraycopy(held, at, held, at + 1, size - at);
    starts[at] = start;
    held[at] = lines;
    size++;
  }

  /** The lines window {@code start} held, or -1 when it is not here. */
  long heldBy(long start) {
    int i = Arrays.binarySearch(starts, 0, size, start);
    return i >= 0 ? held[i] : -1;
  }

  /** The index of the first window starting after {@code start} ({@link #size} when none). */
  int firstAfter(long start) {
    int i = Arrays.binarySearch(starts, 0, size, start);
    return i >= 0 ? i + 1 : -i - 1;
  }

  /** The index of the first window starting at or after {@code start}. */
  int firstFrom(long start) {
    int i = Arrays.binarySearch(starts, 0, size, start);
    return i >= 0 ? i : -i - 1;
  }

  /** Drops the windows starting before {@code start}. */
  void dropBefore(long start) {
    int n = firstFrom(start);
    if (n == 0) {
      return;
    }
    System.arraycopy(starts, n, starts, 0, size - n);
    System.arraycopy(held, n, held, 0, size - n);
    size -= n;
  }

  void write(DataOutputStream out) throws IOException {
    out.writeInt(size);
    for (int i = 0; i < size; i++) {
      out.writeLong(starts[i]);
      out.writeLong(held[i]);
    }
  }

  static StoredWindows read(DataInputStream in) throws IOException {
    StoredWindows w = new StoredWindows();
    int n = in.readInt();
    w.starts = new long[Math.max(64, n)];
    w.held = new long[Math.max(64, n)];
    for (int i = 0; i < n; i++) {
      w.starts[i] = in.readLong();
      w.held[i] = in.readLong();
    }
    w.size = n;
    return w;
  }
}
