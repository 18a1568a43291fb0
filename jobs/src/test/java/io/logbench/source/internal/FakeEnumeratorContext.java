package io.logbench.source.internal;

import io.logbench.source.internal.StripeSplit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/** A hand-written enumerator context that records assignments and "no more splits" signals. */
final class FakeEnumeratorContext implements SplitEnumeratorContext<StripeSplit> {

  final Map<Integer, List<StripeSplit>> assigned = new HashMap<>();
  final Set<Integer> noMoreSplits = new TreeSet<>();
  private final int parallelism;

  FakeEnumeratorContext(int parallelism) {
    this.parallelism = parallelism;
  }

  List<StripeSplit> assignedTo(int subtask) {
    return assigned.getOrDefault(subtask, List.of());
  }

  @Override
  public SplitEnumeratorMetricGroup metricGroup() {
    return UnregisteredMetricsGroup.createSplitEnumeratorMetricGroup();
  }

  @Override
  public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
    throw new UnsupportedOperationException("The dataset source sends no events.");
  }

  @Override
  public int currentParallelism() {
    return parallelism;
  }

  @Override
  public Map<Integer, ReaderInfo> registeredReaders() {
    return Map.of();
  }

  @Override
  public void assignSplits(SplitsAssignment<StripeSplit> assignment) {
    assignment
        .assignment()
        .forEach(
            (subtask, splits) ->
                assigned.computeIfAbsent(subtask, k -> new ArrayList<>()).addAll(splits));
  }

  @Override
  public void signalNoMoreSplits(int subtask) {
    noMoreSplits.add(subtask);
  }

  @Override
  public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
    throw new UnsupportedOperationException();
  }

  @Override
  public <T> void callAsync(
      Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay, long period) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void runInCoordinatorThread(Runnable runnable) {
    runnable.run();
  }
}
