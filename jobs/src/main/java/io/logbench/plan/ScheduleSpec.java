package io.logbench.plan;

import java.time.Duration;
import java.util.List;

/**
 * The {@code schedule} block of a run file.
 *
 * @param kind constant, ladder, replay or max
 * @param rate constant: lines per second
 * @param duration constant: optional bound on the run's length, or null
 * @param steps ladder: the rates, lines per second
 * @param ramp ladder: time to climb to each step's rate
 * @param hold ladder: time each step's rate is held
 * @param speedup replay: how many times faster than the dataset's own time
 * @param tick paced kinds: the least time between two wake-ups of a source task; batches due
 *     closer together leave together, each at most this late ({@link #DEFAULT_TICK}; zero wakes
 *     for every batch)
 */
public record ScheduleSpec(
    String kind,
    double rate,
    Duration duration,
    List<Double> steps,
    Duration ramp,
    Duration hold,
    double speedup,
    Duration tick) {

  public static final String CONSTANT = "constant";
  public static final String LADDER = "ladder";
  public static final String REPLAY = "replay";
  public static final String MAX = "max";

  /** Seed 000's ladder: 5k to 100k lines per second. */
  public static final List<Double> DEFAULT_STEPS =
      List.of(5000.0, 10000.0, 20000.0, 40000.0, 50000.0, 70000.0, 100000.0);

  public static final Duration DEFAULT_RAMP = Duration.ofSeconds(30);
  public static final Duration DEFAULT_HOLD = Duration.ofMinutes(2);

  /** A source task wakes at most every 5 ms (see docs/schedules.md, "Pacing tick"). */
  public static final Duration DEFAULT_TICK = Duration.ofMillis(5);

  /** The longest pacing tick a run file may ask for. */
  public static final Duration MAX_TICK = Duration.ofSeconds(1);

  /** True unless lines go as fast as the backend takes them. */
  public boolean paced() {
    return !MAX.equals(kind);
  }
}
