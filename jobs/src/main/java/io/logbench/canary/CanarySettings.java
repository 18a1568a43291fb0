package io.logbench.canary;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.config.Durations;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a canary checks its windows, from the run file's {@code canary:} block (every key
 * optional) and the command line's overrides: each window is first counted {@code settle} after
 * its end, counted again every {@code recheck} while it does not match, and its verdict is final
 * when it matches or {@code maxWait} after its first count; windows verified earlier are counted
 * again at each of {@code spotAges} of age, and {@code olderPerHour} windows an hour are drawn
 * among the older ones up to {@code retention}, which is also how long the ledger and verdict
 * files are kept.
 *
 * @param settle how long after a window's end it is first counted
 * @param maxWait how long after its first count a window may take to match before its last
 *     verdict is final (MISSING, DUPLICATE or PENDING)
 * @param recheck the pause between two counts of a window that does not match yet
 * @param drill most sequence ids listed per window in a drill-down (0: none)
 * @param retention how long verdict and ledger files are kept, and the oldest window spot-checked
 * @param spotAges the ages at which every verified window is counted again, ascending
 * @param olderPerHour windows an hour drawn at random between the last spot age and {@code
 *     retention} and counted again (0: none)
 */
public record CanarySettings(Duration settle, Duration maxWait, Duration recheck, int drill, Duration retention,
    List<Duration> spotAges, int olderPerHour) implements Serializable {

  private static final long serialVersionUID = 1L;

  public static final Duration DEFAULT_SETTLE = Duration.ofSeconds(30);
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofMinutes(5);
  public static final Duration DEFAULT_RECHECK = Duration.ofSeconds(5);
  public static final int DEFAULT_DRILL = 100;
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
  public static final List<Duration> DEFAULT_SPOT_AGES =
      List.of(Duration.ofHours(1), Duration.ofHours(6), Duration.ofHours(24));
  /** One older window every 10 minutes: a week of windows is sampled without a burst of queries. */
  public static final int DEFAULT_OLDER_PER_HOUR = 6;

  /** Past the checks of a window, how long its ledger state stays for late outcomes. */
  static final Duration HORIZON_MARGIN = Duration.ofMinutes(1);

  /** The keys of a {@code canary:} block. */
  public static final String[] KEYS = {"settle", "max_wait", "recheck", "drill", "retention", "spot_checks"};

  public CanarySettings {
    Objects.requireNonNull(settle, "settle");
    Objects.requireNonNull(maxWait, "maxWait");
    Objects.requireNonNull(recheck, "recheck");
    Objects.requireNonNull(retention, "retention");
    spotAges = List.copyOf(spotAges);
  }

  /** The defaults: settle 30 s, max wait 5 min, recheck 5 s, retention 7 d, spot checks at 1 h, 6 h, 24 h. */
  public static CanarySettings defaults() {
    return new CanarySettings(DEFAULT_SETTLE, DEFAULT_MAX_WAIT, DEFAULT_RECHECK, DEFAULT_DRILL, DEFAULT_RETENTION,
        DEFAULT_SPOT_AGES, DEFAULT_OLDER_PER_HOUR);
  }

  /**
   * How long after a window's end the canary's ledger keeps its state: past its last count
   * ({@code settle + maxWait}), a recheck and a margin for outcomes still on their way.
   */
  public Duration horizon() {
    return settle.plus(maxWait).plus(recheck).plus(HORIZON_MARGIN);
  }

  /** The same settings with each non-null override in place (the command line's options). */
  public CanarySettings with(Duration newSettle, Duration newMaxWait, Duration newRecheck, Duration newRetention) {
    CanarySettings s = new CanarySettings(newSettle != null ? newSettle : settle,
        newMaxWait != null ? newMaxWait : maxWait, newRecheck != null ? newRecheck : recheck, drill,
        newRetention != null ? newRetention : retention, spotAges, olderPerHour);
    s.check("the command line's --settle, --max-wait and --retention");
    return s;
  }

  /**
   * The one cross-key check: spot ages ascending, each past a window's last count ({@code settle
   * + maxWait}, so a window is final before it is counted again) and within {@code retention}.
   *
   * @param where what to name in the message (the block's path, or the options)
   */
  void check(String where) {
    Duration last = settle.plus(maxWait);
    Duration before = Duration.ZERO;
    for (int i = 0; i < spotAges.size(); i++) {
      Duration a = spotAges.get(i);
      String at = where + ": spot_checks.ages[" + i + "]";
      if (a.compareTo(last) <= 0) {
        throw ConfigException.invalid(at, Durations.format(a), "an age past settle + max_wait ("
            + Durations.format(last) + "): a window's verdict is final only then");
      }
      if (a.compareTo(retention) > 0) {
        throw ConfigException.invalid(at, Durations.format(a), "an age within retention ("
            + Durations.format(retention) + "): older windows' verdicts are deleted");
      }
      if (a.compareTo(before) <= 0) {
        throw ConfigException.invalid(at, Durations.format(a), "ages in ascending order, each after "
            + Durations.format(before));
      }
      before = a;
    }
  }

  /** Reads a {@code canary:} block (every key optional) over the defaults. */
  public static CanarySettings parse(ConfigNode block) {
    block.allowOnly(KEYS);
    CanarySettings d = defaults();
    ConfigNode spot = block.mapping("spot_checks").allowOnly("ages", "older_per_hour");
    CanarySettings s = new CanarySettings(
        block.duration("settle", d.settle(), true),
        block.duration("max_wait", d.maxWait(), true),
        block.duration("recheck", d.recheck(), false),
        (int) block.integer("drill", d.drill(), 0, 100_000, "most sequence ids listed per window, 0 to 100000"),
        block.duration("retention", d.retention(), false),
        spot.durations("ages", d.spotAges(), false),
        (int) spot.integer("older_per_hour", d.olderPerHour(), 0, 3600,
            "older windows counted again an hour, 0 (none) to 3600"));
    s.check(block.path());
    return s;
  }
}
