package io.logbench.verify.internal;

import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/** Hands the backend's one split to the first reader (again after a failover). */
public final class CheckEnumerator implements SplitEnumerator<CheckSplit, Boolean> {

  private final SplitEnumeratorContext<CheckSplit> context;
  private final String backend;
  private boolean assigned;

  public CheckEnumerator(SplitEnumeratorContext<CheckSplit> context, String backend, boolean assigned) {
    this.context = context;
    this.backend = backend;
    this.assigned = assigned;
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {}

  @Override
  public void addSplitsBack(List<CheckSplit> splits, int subtaskId) {
    assigned = false;
  }

  @Override
  public void addReader(int subtaskId) {
    if (!assigned) {
      context.assignSplit(new CheckSplit(backend), subtaskId);
      assigned = true;
    }
    context.signalNoMoreSplits(subtaskId);
  }

  @Override
  public Boolean snapshotState(long checkpointId) {
    return assigned;
  }

  @Override
  public void close() {}
}
