package io.logbench.sink;

import io.logbench.config.ConfigNode;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@code generate} measures write-to-visible latency: one batch in {@code sample} (by batch
 * number, so the same batches in every run) is polled by its sequence ids, every {@code poll},
 * until every line of it is countable, for at most {@code timeout}. Read from the run file's
 * {@code visibility:} block, which a backend block's own {@code visibility:} overrides key by key.
 *
 * @param sample one batch in this many is sampled (1: every batch); 0 turns sampling off, and
 *     with it the end-of-run count that times the last line visible
 * @param poll how often the pending samples are polled
 * @param timeout how long a sample, and the run's last line, may take to become visible before it
 *     counts as not visible
 */
public record VisibilitySettings(int sample, Duration poll, Duration timeout) implements Serializable {

  private static final long serialVersionUID = 1L;

  /** One batch in a hundred: cheap at any rate, yet hundreds of samples in a run of minutes. */
  public static final int DEFAULT_SAMPLE = 100;

  /**
   * A quarter of a second: finer than OpenSearch's default 1 s refresh, coarse enough that a few
   * pending samples cost a few requests a second.
   */
  public static final Duration DEFAULT_POLL = Duration.ofMillis(250);

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  /** The keys of a {@code visibility:} block. */
  public static final String[] KEYS = {"sample", "poll", "timeout"};

  public VisibilitySettings {
    Objects.requireNonNull(poll, "poll");
    Objects.requireNonNull(timeout, "timeout");
    if (sample < 0) {
      throw new IllegalArgumentException("A visibility sample is one batch in N, N >= 0 (0: off), not " + sample + ".");
    }
  }

  /** The defaults: one batch in {@value #DEFAULT_SAMPLE}, polled every 250 ms for up to 60 s. */
  public static VisibilitySettings defaults() {
    return new VisibilitySettings(DEFAULT_SAMPLE, DEFAULT_POLL, DEFAULT_TIMEOUT);
  }

  /** Sampling off. */
  public static VisibilitySettings off() {
    return new VisibilitySettings(0, DEFAULT_POLL, DEFAULT_TIMEOUT);
  }

  public boolean enabled() {
    return sample > 0;
  }

  /** Whether batch number {@code batchNumber} of the run is sampled. */
  public boolean sampled(long batchNumber) {
    return sample > 0 && Math.floorMod(batchNumber, (long) sample) == 0;
  }

  /** Reads a {@code visibility:} block (every key optional) over {@code base}. */
  public static VisibilitySettings parse(ConfigNode block, VisibilitySettings base) {
    return Overrides.parse(block).over(base);
  }

  /**
   * A backend block's {@code visibility:} keys, each null when the block does not set it (the run
   * file's value then holds).
   */
  public record Overrides(Integer sample, Duration poll, Duration timeout) implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Sets nothing. */
    public static Overrides none() {
      return new Overrides(null, null, null);
    }

    /** Reads a {@code visibility:} block; absent keys stay null. */
    public static Overrides parse(ConfigNode block) {
      block.allowOnly(KEYS);
      Integer sample = block.has("sample")
          ? (int) block.integer("sample", 0, 0, 1_000_000_000, "one batch in N to sample: 0 (off) or a whole"
              + " number of batches from 1 (every batch)")
          : null;
      return new Overrides(sample, block.duration("poll", null, false), block.duration("timeout", null, false));
    }

    /** These keys over {@code base}. */
    public VisibilitySettings over(VisibilitySettings base) {
      return new VisibilitySettings(sample != null ? sample : base.sample(), poll != null ? poll : base.poll(),
          timeout != null ? timeout : base.timeout());
    }
  }
}
