package io.logbench.canary;

import io.logbench.sink.BackendSpec;
import io.logbench.sink.Capabilities;
import io.logbench.sink.RunContext;
import java.io.Serializable;

/**
 * Everything one backend's canary checks need inside a Flink task: its block, the run (id,
 * dataset, first line, times and gaps), the windows, the settings, where the run directory is and
 * the window to start with when there is no checkpoint. Opens its reader (and with it any secret)
 * only in {@link #openCounter}.
 *
 * @param firstWindowStart the window the checks start with when nothing is restored
 * @param runDir the run directory's local path
 * @param zone the run's zone id (day files, printed times)
 */
public record CanaryTarget(BackendSpec spec, RunContext run, CanaryGrid grid, CanarySettings settings,
    long firstWindowStart, String runDir, String zone) implements Serializable {

  private static final long serialVersionUID = 1L;

  public String name() {
    return spec.name();
  }

  /**
   * Whether the backend's ids are {@code seq mod 999,999} (from nanosecond timestamps) rather
   * than full sequence ids: its ids come from nanosecond offsets and the lines carry no {@code
   * "seq"} of their own.
   */
  public boolean idsFromNanos() {
    return spec.capabilities().lineIds() == Capabilities.LineIds.NANOSECOND_OFFSET
        && !run.dataset().linesCarrySeq();
  }

  /** Opens the backend's counter: its own count reader, by time. */
  public WindowCounter openCounter() {
    return WindowCounter.of(spec.openCounter(run), idsFromNanos());
  }
}
