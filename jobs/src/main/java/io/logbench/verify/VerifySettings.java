package io.logbench.verify;

import java.io.Serializable;
import java.time.Duration;

/**
 * How the verifier waits and drills down.
 *
 * @param continuous check windows as they close beside a live run (else: a finished run, once)
 * @param settle how long after a window's end it is first checked
 * @param maxWait how long after that first check a window may take to match (continuous), or a
 *     backend may take to answer (one-shot), before its last verdict is final
 * @param recheck pause between checks of a window that does not match yet
 * @param drill most sequence ids listed per MISSING or DUPLICATE window (0: no drill-down)
 */
public record VerifySettings(boolean continuous, Duration settle, Duration maxWait, Duration recheck, int drill)
    implements Serializable {

  public static final Duration DEFAULT_SETTLE = Duration.ofSeconds(30);
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofMinutes(5);
  /** One-shot mode retries a backend that does not answer for this long by default. */
  public static final Duration DEFAULT_ONE_SHOT_MAX_WAIT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_RECHECK = Duration.ofSeconds(5);
  public static final int DEFAULT_DRILL = 100;

  public VerifySettings {
    if (settle.isNegative() || maxWait.isNegative() || recheck.isNegative() || recheck.isZero() || drill < 0) {
      throw new IllegalArgumentException("settle and max-wait must not be negative, recheck must be positive and drill"
          + " at least 0, got " + settle + ", " + maxWait + ", " + recheck + " and " + drill + ".");
    }
  }

  /** One-shot defaults: no settle, retry an unanswering backend for 30 s. */
  public static VerifySettings oneShot() {
    return new VerifySettings(false, Duration.ZERO, DEFAULT_ONE_SHOT_MAX_WAIT, DEFAULT_RECHECK, DEFAULT_DRILL);
  }

  /** Continuous defaults: settle 30 s, max wait 5 min. */
  public static VerifySettings continuousDefaults() {
    return new VerifySettings(true, DEFAULT_SETTLE, DEFAULT_MAX_WAIT, DEFAULT_RECHECK, DEFAULT_DRILL);
  }
}
