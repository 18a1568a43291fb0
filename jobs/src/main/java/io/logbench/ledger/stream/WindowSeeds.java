package io.logbench.ledger.stream;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/** Turns window number {@code i} of the run's span into a seed per backend. */
public final class WindowSeeds implements FlatMapFunction<Long, WindowDelta> {

  private static final long serialVersionUID = 1L;

  private final ArrayList<String> backends;
  private final long firstWindowMillis;
  private final long windowMillis;

  public WindowSeeds(List<String> backends, long firstWindowMillis, long windowMillis) {
    this.backends = new ArrayList<>(backends);
    this.firstWindowMillis = firstWindowMillis;
    this.windowMillis = windowMillis;
  }

  @Override
  public void flatMap(Long window, Collector<WindowDelta> out) {
    long start = firstWindowMillis + window * windowMillis;
    for (String b : backends) {
      out.collect(WindowDelta.seed(b, start));
    }
  }
}
