package io.logbench.delivery;

import io.logbench.delivery.internal.BreachBoard;
import io.logbench.delivery.internal.DeliveryStats;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.ThresholdBreach;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * Passes outcomes through and reports the load-test threshold breach of the {@link
 * DeliveryFunction} chained before it as the job accumulator {@link DeliveryFunction#BREACHES}
 * plus the backend name. If the two are not chained, no breach is reported (the aborted batches
 * still show in the outcomes).
 */
final class BreachReporter extends RichMapFunction<BatchOutcome, BatchOutcome> {

  private static final long serialVersionUID = 1L;

  private final String boardKey;
  private final String backend;
  private transient String key;
  private transient ListAccumulator<ThresholdBreach> breaches;
  private transient boolean reported;

  BreachReporter(String boardKey, String backend) {
    this.boardKey = boardKey;
    this.backend = backend;
  }

  @Override
  public void open(OpenContext openContext) {
    key = boardKey + "/" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    breaches = new ListAccumulator<>();
    getRuntimeContext().addAccumulator(DeliveryFunction.BREACHES + backend, breaches);
  }

  @Override
  public BatchOutcome map(BatchOutcome outcome) {
    if (!reported && outcome.status() == BatchOutcome.Status.ABORTED) {
      report();
    }
    return outcome;
  }

  private void report() {
    DeliveryStats stats = BreachBoard.get(key);
    if (!reported && stats != null && stats.breach() != null) {
      breaches.add(stats.breach());
      reported = true;
    }
  }

  @Override
  public void close() {
    // A restart attempt may cancel the task before open() ran: then there is no key (the board's
    // map takes no null), nothing to report, and an exception here would shut the TaskManager down.
    if (key == null) {
      return;
    }
    report();
    BreachBoard.remove(key);
  }
}
