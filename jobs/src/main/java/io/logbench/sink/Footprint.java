package io.logbench.sink;

import java.io.Serializable;

/**
 * What a backend says it stores, read after a run ({@link BackendSpec#footprint}): bytes, and
 * where the figure comes from, since each backend counts differently (an index's store size, a
 * data directory, flushed chunks, log segments) and the figure may cover more than the run.
 *
 * @param bytes bytes stored
 * @param source where the figure comes from and what it covers, a phrase such as "OpenSearch
 *     index logbench: primaries store size (_stats/store)"
 */
public record Footprint(long bytes, String source) implements Serializable {

  private static final long serialVersionUID = 1L;

  public Footprint {
    if (bytes < 0) {
      throw new IllegalArgumentException("Stored bytes cannot be negative: " + bytes + ".");
    }
    source = source == null ? "" : source;
  }
}
