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
 * @param complete whether the figure holds everything the backend keeps of the lines; false when
 *     part is still where the figure does not look (Loki chunks still in an ingester's memory),
 *     which {@code source} then says
 */
public record Footprint(long bytes, String source, boolean complete) implements Serializable {

  private static final long serialVersionUID = 1L;

  public Footprint {
    if (bytes < 0) {
      throw new IllegalArgumentException("Stored bytes cannot be negative: " + bytes + ".");
    }
    source = source == null ? "" : source;
  }

  /** A figure that holds everything the backend keeps. */
  public Footprint(long bytes, String source) {
    this(bytes, source, true);
  }

  /**
   * The {@code flush} and {@code flush_timeout} keys of a backend whose stored size is read after
   * a flush it asks for: how long to wait for the flush (default {@code defaultTimeout}), or zero
   * with {@code flush: false}, which takes no {@code flush_timeout}.
   */
  public static java.time.Duration flushTimeout(io.logbench.config.ConfigNode block,
      java.time.Duration defaultTimeout) {
    java.time.Duration timeout = block.duration("flush_timeout", defaultTimeout, false);
    if ("false".equals(block.choice("flush", "true", "true", "false"))) {
      if (block.has("flush_timeout")) {
        throw block.invalid("flush_timeout", block.string("flush_timeout", ""),
            "no flush_timeout with flush: false (nothing is flushed, so nothing is waited for)");
      }
      return java.time.Duration.ZERO;
    }
    return timeout;
  }
}
