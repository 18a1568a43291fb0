package io.logbench.pipeline;

import io.logbench.dataset.LineBatch;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * The operator in front of a pipeline's write: every batch again with each line stamped with the
 * run's id and its sequence id ({@link LineStamp}). A new batch per batch, as the write may hold
 * it until its answer comes.
 */
public final class StampedLines implements MapFunction<LineBatch, LineBatch> {

  private static final long serialVersionUID = 1L;

  private final String runId;
  private transient LineStamp stamp;

  public StampedLines(String runId) {
    this.runId = runId;
    new LineStamp(runId); // fails here, on the client, for a run without an id
  }

  @Override
  public LineBatch map(LineBatch batch) {
    if (stamp == null) {
      stamp = new LineStamp(runId);
    }
    return stamp.stamp(batch);
  }
}
