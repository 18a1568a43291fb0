package io.logbench.sink.internal;

import io.logbench.dataset.LineBatch;
import java.util.Arrays;

/**
 * The lines of a batch grouped by stream (streams in order of first appearance, lines in batch
 * order within a stream), as Loki's push bodies and OTLP's resources want them. Reused from batch to batch.
 */
public final class StreamGroups {

  private final int[] firstSlot;
  private int[] streamOfGroup = new int[16];
  private int[] groupCount = new int[16];
  private int[] groupStart = new int[17];
  private int[] order = new int[128];
  private int groups;

  public StreamGroups(int streams) {
    firstSlot = new int[streams];
  }

  /** Groups the lines of {@code batch}. */
  public void group(LineBatch batch) {
    group(batch, null);
  }

  /** Groups the lines of {@code batch} set in {@code lines} (every line when null). */
  public void group(LineBatch batch, java.util.BitSet lines) {
    int n = batch.count();
    Arrays.fill(firstSlot, -1);
    groups = 0;
    int[] groupOfLine = new int[n];
    for (int k = 0; k < n; k++) {
      if (lines != null && !lines.get(k)) {
        groupOfLine[k] = -1;
        continue;
      }
      int s = batch.stream(k);
      if (s < 0 || s >= firstSlot.length) {
        throw new IllegalArgumentException(
            "Line " + k + " of batch " + batch.batchId() + " has stream id " + s
                + ", outside the " + firstSlot.length + " streams of the dataset.");
      }
      int g = firstSlot[s];
      if (g < 0) {
        if (groups == streamOfGroup.length) {
          streamOfGroup = Arrays.copyOf(streamOfGroup, groups * 2);
          groupCount = Arrays.copyOf(groupCount, groups * 2);
          groupStart = Arrays.copyOf(groupStart, groups * 2 + 1);
        }
        g = groups++;
        firstSlot[s] = g;
        streamOfGroup[g] = s;
        groupCount[g] = 0;
      }
      groupCount[g]++;
      groupOfLine[k] = g;
    }
    groupStart[0] = 0;
    for (int g = 0; g < groups; g++) {
      groupStart[g + 1] = groupStart[g] + groupCount[g];
    }
    if (order.length < n) {
      order = new int[Math.max(n, order.length * 2)];
    }
    int[] next = Arrays.copyOf(groupStart, groups);
    for (int k = 0; k < n; k++) {
      if (groupOfLine[k] >= 0) {
        order[next[groupOfLine[k]]++] = k;
      }
    }
  }

  public int groups() {
    return groups;
  }

  public int stream(int group) {
    return streamOfGroup[group];
  }

  /** Index into {@link #line} of the group's first line. */
  public int start(int group) {
    return groupStart[group];
  }

  public int end(int group) {
    return groupStart[group + 1];
  }

  /** The batch index of the {@code i}-th line in grouped order. */
  public int line(int i) {
    return order[i];
  }
}
