package io.logbench.pipeline;

import io.logbench.sink.BatchOutcome;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * A write's outcomes under the name of one count block behind it: each count block keeps its own
 * ledger rows and totals of what the one write acknowledged, so the verifier checks each output of
 * the agent against the same acknowledgements, side by side.
 */
public final class CountedAs implements MapFunction<BatchOutcome, BatchOutcome> {

  private static final long serialVersionUID = 1L;

  private final String backend;

  public CountedAs(String backend) {
    this.backend = backend;
  }

  @Override
  public BatchOutcome map(BatchOutcome o) {
    return new BatchOutcome(backend, o.batchId(), o.firstSeq(), o.lines(), o.status(), o.httpStatus(), o.attempts(),
        o.scheduledNanos(), o.latencyNanos(), o.serviceNanos(), o.windows(), o.resends());
  }
}
