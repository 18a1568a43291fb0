package io.logbench.delivery.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a delivery task leaves its stats for the operator chained after it, which reports
 * threshold breaches as a job accumulator (Flink refuses accumulators in async functions).
 * Chained operators share a task and so a JVM; keys are unique per job build and subtask.
 */
public final class BreachBoard {

  private static final Map<String, DeliveryStats> BOARD = new ConcurrentHashMap<>();

  private BreachBoard() {}

  public static void put(String key, DeliveryStats stats) {
    BOARD.put(key, stats);
  }

  /** The stats left under {@code key}, or null. */
  public static DeliveryStats get(String key) {
    return BOARD.get(key);
  }

  public static void remove(String key) {
    BOARD.remove(key);
  }
}
