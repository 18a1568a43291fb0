package io.logbench.visibility;

import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.Capabilities;
import io.logbench.sink.RunContext;
import io.logbench.sink.VisibilitySettings;
import io.logbench.sink.WindowGrid;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * Wires the visibility polls of one backend after its outcomes ({@link VisibilityOperator}), or
 * says why they are not made.
 */
public final class Visibility {

  private Visibility() {}

  /**
   * Why {@code spec}'s visibility is not polled under {@code settings}, as a phrase (e.g. "sampling
   * is off"), or null when it is.
   */
  public static String skipReason(BackendSpec spec, VisibilitySettings settings) {
    if (!settings.enabled()) {
      return "visibility sampling is off (visibility.sample: 0)";
    }
    String uncountable = spec.countUnavailable();
    if (uncountable != null) {
      return uncountable;
    }
    Capabilities c = spec.capabilities();
    if (c.lineIds() == Capabilities.LineIds.NONE) {
      return "the " + spec.kind() + " backend lists no line ids to poll by";
    }
    return null;
  }

  /**
   * Attaches the polls of {@code spec} to its {@code outcomes} (one operator of parallelism 1 and
   * a discarding sink, both per backend, so the backend stays in its own failover region).
   *
   * @param span the run's first line time and last line time + 1 ms
   */
  public static void attach(DataStream<BatchOutcome> outcomes, BackendSpec spec, RunContext run,
      VisibilitySettings settings, long[] span, WindowGrid grid) {
    String name = spec.name();
    outcomes
        .transform("visibility[" + name + "]", Types.VOID, new VisibilityOperator(spec, run, settings, span, grid))
        .uid("visibility-" + name)
        .setParallelism(1)
        .sinkTo(new DiscardingSink<>())
        .name("visibility-end[" + name + "]")
        .uid("visibility-end-" + name)
        .setParallelism(1);
  }
}
