package io.logbench.source.internal;

import java.util.Objects;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One stripe of a {@link DatasetSource} run: stripe {@code s} of {@code S} owns batches {@code s,
 * s+S, s+2S, ...}, and its state is the number of the next batch it emits.
 *
 * <p>The split also carries the run's start, so a reader (and a reader restored from a checkpoint)
 * paces its batches against the same instant as every other reader of the run, and the checkpoint
 * its state was taken in (-1 for a split the enumerator made), so a restored reader can say which
 * checkpoint it went back to. Two splits are equal when they are at the same position; the
 * checkpoint is not part of it.
 */
public final class StripeSplit implements SourceSplit {

  private final int stripe;
  private final int stripes;
  private final long nextBatch;
  private final long runStartMillis;
  private final long checkpointId;

  public StripeSplit(int stripe, int stripes, long nextBatch, long runStartMillis) {
    this(stripe, stripes, nextBatch, runStartMillis, -1);
  }

  /** A split whose state was taken in checkpoint {@code checkpointId} (-1: none). */
  public StripeSplit(int stripe, int stripes, long nextBatch, long runStartMillis, long checkpointId) {
    if (stripes <= 0 || stripe < 0 || stripe >= stripes) {
      throw new IllegalArgumentException(
          "Stripe " + stripe + " of " + stripes + " does not exist; stripes are 0 to count - 1.");
    }
    if (nextBatch < stripe || (nextBatch - stripe) % stripes != 0) {
      throw new IllegalArgumentException(
          "Batch " + nextBatch + " does not belong to stripe " + stripe + " of " + stripes + ".");
    }
    this.stripe = stripe;
    this.stripes = stripes;
    this.nextBatch = nextBatch;
    this.runStartMillis = runStartMillis;
    this.checkpointId = checkpointId;
  }

  @Override
  public String splitId() {
    return "stripe-" + stripe;
  }

  public int stripe() {
    return stripe;
  }

  /** Number of stripes in the run (fixed for the run). */
  public int stripes() {
    return stripes;
  }

  /** Number of the next batch this stripe emits. */
  public long nextBatch() {
    return nextBatch;
  }

  /** Epoch millisecond the run started at; every due time is an offset from it. */
  public long runStartMillis() {
    return runStartMillis;
  }

  /** The checkpoint this split's state was taken in, or -1 when it was not taken in one. */
  public long checkpointId() {
    return checkpointId;
  }

  /** The same stripe positioned at {@code batch}. */
  public StripeSplit at(long batch) {
    return new StripeSplit(stripe, stripes, batch, runStartMillis);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof StripeSplit)) {
      return false;
    }
    StripeSplit that = (StripeSplit) o;
    return stripe == that.stripe
        && stripes == that.stripes
        && nextBatch == that.nextBatch
        && runStartMillis == that.runStartMillis;
  }

  @Override
  public int hashCode() {
    return Objects.hash(stripe, stripes, nextBatch, runStartMillis);
  }

  @Override
  public String toString() {
    return "StripeSplit{stripe="
        + stripe
        + "/"
        + stripes
        + ", nextBatch="
        + nextBatch
        + ", runStartMillis="
        + runStartMillis
        + "}";
  }
}
