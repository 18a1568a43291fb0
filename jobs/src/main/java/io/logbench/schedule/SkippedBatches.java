package io.logbench.schedule;

import java.io.Serializable;

/**
 * The batches of a run that are never sent, from its {@link Gaps} and its batch size: a batch is
 * skipped when its first line is in a gap (gaps start and end on batch boundaries). For operators
 * that wait for batches in order (the files backend's writer), which must not wait for these.
 *
 * @param gaps the run's lines never sent
 * @param batchLines lines per batch
 */
public record SkippedBatches(Gaps gaps, int batchLines) implements Serializable {

  private static final long serialVersionUID = 1L;

  public SkippedBatches {
    if (batchLines < 1) {
      throw new IllegalArgumentException("A batch holds at least 1 line, not " + batchLines + ".");
    }
  }

  /** No batch skipped. */
  public static SkippedBatches none() {
    return new SkippedBatches(Gaps.none(), 1);
  }

  /** {@code batch} when it is sent, else the first batch after it that is. */
  public long next(long batch) {
    long line = batch * batchLines;
    long after = gaps.skip(line);
    return after == line ? batch : next((after + batchLines - 1) / batchLines);
  }
}
