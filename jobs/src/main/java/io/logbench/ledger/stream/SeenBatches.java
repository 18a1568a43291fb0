package io.logbench.ledger.stream;

/**
 * Which batch ids of a backend the ledger has counted, as bitmap blocks of {@value #BLOCK_IDS}
 * ids: batch ids are dense from 0, so a month of batches costs a few bytes per thousand batches
 * of keyed state instead of a state entry per batch.
 */
public final class SeenBatches {

  public static final int BLOCK_BITS = 12;
  public static final int BLOCK_IDS = 1 << BLOCK_BITS;

  private SeenBatches() {}

  /** The block a batch id is in (part of the dedup key). */
  public static long block(long batchId) {
    return batchId >> BLOCK_BITS;
  }

  /** The key of a backend's block: NUL cannot occur in a backend name from a run file. */
  public static String key(String backend, long batchId) {
    return backend + '\u0000' + block(batchId);
  }

  /** A block with no batch marked. */
  public static long[] emptyBlock() {
    return new long[BLOCK_IDS / 64];
  }

  /** Marks {@code batchId} in its block; true the first time, false for a batch seen before. */
  public static boolean markFirst(long[] block, long batchId) {
    int bit = (int) (batchId & (BLOCK_IDS - 1));
    long mask = 1L << (bit & 63);
    if ((block[bit >>> 6] & mask) != 0) {
      return false;
    }
    block[bit >>> 6] |= mask;
    return true;
  }
}
