package io.logbench.source.internal;

import io.logbench.source.internal.StripeSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the stripes of a dataset run to the readers: stripe {@code s} goes to subtask {@code s %
 * parallelism}, all at registration, followed by "no more splits".
 *
 * <p>It chooses the run start once, when the first reader registers (readers are deployed after
 * the enumerator starts, so choosing earlier would begin every run behind schedule), unless a
 * fixed start was configured, and keeps it in its checkpointed state.
 */
public final class DatasetSplitEnumerator implements SplitEnumerator<StripeSplit, EnumeratorState> {

  private static final Logger LOG = LoggerFactory.getLogger(DatasetSplitEnumerator.class);

  private final SplitEnumeratorContext<StripeSplit> context;
  private final long fixedRunStartMillis;
  private final int stripes;
  private final TreeMap<Integer, StripeSplit> unassigned = new TreeMap<>();
  private long runStartMillis;

  /**
   * @param fixedRunStartMillis the run start to use, or {@link EnumeratorState#NOT_STARTED} to
   *     take the wall clock when the first reader registers
   */
  public DatasetSplitEnumerator(
      SplitEnumeratorContext<StripeSplit> context, EnumeratorState state, long fixedRunStartMillis) {
    this.context = context;
    this.fixedRunStartMillis = fixedRunStartMillis;
    this.stripes = state.stripes();
    this.runStartMillis = state.runStartMillis();
    for (StripeSplit split : state.unassigned()) {
      unassigned.put(split.stripe(), split);
    }
    if (state.started()) {
      LOG.info(
          "Dataset run restored: started at {} (epoch ms), {} of {} stripes unassigned.",
          runStartMillis,
          unassigned.size(),
          stripes);
    }
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    // Splits are pushed when a reader registers; readers never ask.
  }

  @Override
  public void addSplitsBack(List<StripeSplit> splits, int subtaskId) {
    LOG.info("Stripes {} come back from failed subtask {}.", splits, subtaskId);
    for (StripeSplit split : splits) {
      unassigned.put(split.stripe(), split);
    }
  }

  @Override
  public void addReader(int subtaskId) {
    startIfNeeded();
    int parallelism = context.currentParallelism();
    List<StripeSplit> mine = new ArrayList<>();
    unassigned
        .values()
        .removeIf(
            split -> {
              if (split.stripe() % parallelism == subtaskId) {
                mine.add(split);
                return true;
              }
              return false;
            });
    if (!mine.isEmpty()) {
      context.assignSplits(new SplitsAssignment<>(Map.of(subtaskId, mine)));
    }
    context.signalNoMoreSplits(subtaskId);
  }

  private void startIfNeeded() {
    if (runStartMillis != EnumeratorState.NOT_STARTED) {
      return;
    }
    runStartMillis =
        fixedRunStartMillis != EnumeratorState.NOT_STARTED
            ? fixedRunStartMillis
            : System.currentTimeMillis();
    for (int s = 0; s < stripes; s++) {
      unassigned.put(s, new StripeSplit(s, stripes, s, runStartMillis));
    }
    // generate prints the run's start itself, and writes it to run.json; one line per backend's
    // enumerator told a user nothing
    LOG.debug("Dataset run starts at {} (epoch ms) over {} stripes.", runStartMillis, stripes);
  }

  @Override
  public EnumeratorState snapshotState(long checkpointId) {
    return new EnumeratorState(runStartMillis, stripes, new ArrayList<>(unassigned.values()));
  }

  @Override
  public void close() {}
}
