package io.logbench.replay;

import java.io.Closeable;
import java.io.IOException;

/**
 * Keeps a stripe's lease ahead of what it emits: before the stripe emits batch {@code b} beyond
 * the lease, the lease is extended to {@code b + (leaseBatches - 1) * stripes} and written, so the
 * file always bounds what was emitted from above, and is written once every {@code leaseBatches}
 * batches of the stripe. After a failure, the next attempt knows every batch from its restored
 * position up to the lease may have been sent already, and at most {@code leaseBatches - 1} of
 * them were not.
 */
public final class StripeLease implements Closeable {

  private final ReplayFiles.Lease file;
  private final long extension;
  private long upTo;

  /**
   * @param file the stripe's lease file
   * @param stripes number of stripes (the stripe owns every {@code stripes}-th batch)
   * @param leaseBatches batches of the stripe each extension covers, at least 1
   * @param current the lease in force (what the file holds), or {@link ReplayFiles.Lease#NONE}
   */
  public StripeLease(ReplayFiles.Lease file, int stripes, int leaseBatches, long current) {
    if (leaseBatches < 1) {
      throw new IllegalArgumentException("A lease must cover at least 1 batch, not " + leaseBatches + ".");
    }
    this.file = file;
    this.extension = (leaseBatches - 1L) * stripes;
    this.upTo = current;
  }

  /** Call right before emitting {@code batch}: extends the lease on file first if it is beyond it. */
  public void beforeEmit(long batch) {
    if (batch > upTo) {
      upTo = batch + extension;
      file.write(upTo);
    }
  }

  /** The highest batch id the lease covers. */
  public long upTo() {
    return upTo;
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
