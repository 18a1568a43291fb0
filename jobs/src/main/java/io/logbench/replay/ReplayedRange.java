package io.logbench.replay;

import java.io.Serializable;

/**
 * Batches a restored attempt sent again that an earlier attempt may already have sent: a strided
 * run of batches, {@code firstBatch, firstBatch + batchStep, ..., lastBatch}, batch {@code k} of the
 * run (from 0) holding sequence ids {@code [firstSeq + k * seqStep, firstSeq + k * seqStep +
 * batchLines)}, cut at {@code endSeq}. One restored in-flight batch is a run of one batch; what a
 * stripe emits again from its restored position up to its lease is every {@code S}-th batch
 * ({@code batchStep = S}, {@code seqStep = S * batch size}).
 *
 * @param firstBatch id of the first batch
 * @param lastBatch id of the last batch (inclusive)
 * @param batchStep difference of consecutive batch ids (at least 1)
 * @param firstSeq sequence id of the first batch's first line
 * @param seqStep difference of consecutive batches' first sequence ids (at least batchLines)
 * @param batchLines lines per batch
 * @param endSeq one past the last sequence id any batch of the range may hold (the run's end)
 */
public record ReplayedRange(long firstBatch, long lastBatch, long batchStep, long firstSeq, long seqStep,
    int batchLines, long endSeq) implements Serializable {

  private static final long serialVersionUID = 1L;

  public ReplayedRange {
    if (lastBatch < firstBatch || batchStep < 1 || batchLines < 1 || seqStep < batchLines
        || (lastBatch - firstBatch) % batchStep != 0 || endSeq <= firstSeq) {
      throw new IllegalArgumentException("A replayed range needs firstBatch <= lastBatch on its step, a step of at"
          + " least 1, batches of at least 1 line no longer than the sequence step, and an end after its first"
          + " line; got batches " + firstBatch + ".." + lastBatch + " step " + batchStep + ", seq " + firstSeq
          + " step " + seqStep + " x " + batchLines + " lines, end " + endSeq + ".");
    }
  }

  /** One batch of {@code lines} consecutive lines from {@code firstSeq}. */
  public static ReplayedRange batch(long batchId, long firstSeq, int lines) {
    return new ReplayedRange(batchId, batchId, 1, firstSeq, lines, lines, firstSeq + lines);
  }

  /**
   * The batches of a stripe from {@code fromBatch} to {@code toBatch} (both the stripe's, or
   * beyond the run's last batch, which is left out); null when none is left.
   *
   * @param stripes number of stripes (the stripe owns every {@code stripes}-th batch)
   * @param batchSize lines per batch
   * @param firstIndex sequence id of the run's first line
   * @param runLines lines in the run
   */
  public static ReplayedRange stripe(long fromBatch, long toBatch, int stripes, int batchSize, long firstIndex,
      long runLines) {
    long batches = (runLines + batchSize - 1) / batchSize;
    long last = Math.min(toBatch, batches - 1);
    last -= Math.floorMod(last - fromBatch, (long) stripes);
    if (last < fromBatch) {
      return null;
    }
    return new ReplayedRange(fromBatch, last, stripes, firstIndex + fromBatch * batchSize,
        (long) stripes * batchSize, batchSize, firstIndex + runLines);
  }

  /** Batches in the range. */
  public long batches() {
    return (lastBatch - firstBatch) / batchStep + 1;
  }

  /** Lines in the range. */
  public long lines() {
    return linesIn(firstSeq, endSeq);
  }

  /** Whether line {@code seq} is in one of the range's batches. */
  public boolean contains(long seq) {
    if (seq < firstSeq || seq >= endSeq) {
      return false;
    }
    long d = seq - firstSeq;
    return d / seqStep < batches() && d % seqStep < batchLines;
  }

  /** Lines of the range with sequence ids in {@code [lo, hi)}. */
  public long linesIn(long lo, long hi) {
    long from = Math.max(lo, firstSeq);
    long to = Math.min(hi, endSeq);
    if (to <= from) {
      return 0;
    }
    long n = 0;
    for (long k = (from - firstSeq) / seqStep; k < batches(); k++) {
      long start = firstSeq + k * seqStep;
      if (start >= to) {
        break;
      }
      n += Math.max(0, Math.min(start + batchLines, to) - Math.max(start, from));
    }
    return n;
  }

  /** The smallest and largest sequence id of the range in {@code [lo, hi)}, or null when none. */
  public long[] boundsIn(long lo, long hi) {
    long from = Math.max(lo, firstSeq);
    long to = Math.min(hi, endSeq);
    long min = -1;
    long max = -1;
    for (long k = to <= from ? batches() : (from - firstSeq) / seqStep; k < batches(); k++) {
      long start = firstSeq + k * seqStep;
      if (start >= to) {
        break;
      }
      long a = Math.max(start, from);
      long b = Math.min(start + batchLines, to) - 1;
      if (a <= b) {
        min = min < 0 ? a : min;
        max = b;
      }
    }
    return min < 0 ? null : new long[] {min, max};
  }
}
