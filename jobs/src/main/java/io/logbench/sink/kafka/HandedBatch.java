package io.logbench.sink.kafka;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.WindowGrid;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * A batch handed to the transactional sink, waiting for the checkpoint that commits it: what its
 * outcome will say (lines per window, all acknowledged), when it was handed over, and, once
 * {@link CommittedOutcomes} has snapshotted it, the checkpoint whose transaction holds it. A Flink
 * POJO (public fields, no-argument constructor), so it travels and sits in state without Kryo
 * but for the outcome's lists.
 */
public final class HandedBatch {

  /** The checkpoint whose transaction holds the batch; -1 until snapshotted. */
  public long checkpointId = -1;
  /** Epoch nanoseconds the batch was handed to the sink. */
  public long handedNanos;
  /** The outcome as it will be when committed (latency and service time still 0). */
  public BatchOutcome outcome;

  public HandedBatch() {}

  HandedBatch(long handedNanos, BatchOutcome outcome) {
    this.handedNanos = handedNanos;
    this.outcome = outcome;
  }

  /** The outcome at {@code nowNanos}: {@code status}, latency from the scheduled (else handed) time. */
  BatchOutcome outcomeAt(long nowNanos, BatchOutcome.Status status, String reason) {
    long from = outcome.scheduledNanos() != 0 ? outcome.scheduledNanos() : handedNanos;
    List<BatchOutcome.WindowTally> windows = outcome.windows();
    if (status != BatchOutcome.Status.ACKED) {
      windows = new ArrayList<>(windows.size());
      for (BatchOutcome.WindowTally w : outcome.windows()) {
        HashMap<String, Integer> rejected = new HashMap<>();
        rejected.put(reason, w.sent());
        windows.add(new BatchOutcome.WindowTally(w.windowStartMillis(), w.sent(), 0, rejected));
      }
    }
    return new BatchOutcome(outcome.backend(), outcome.batchId(), outcome.firstSeq(), outcome.lines(), status,
        0, 1, outcome.scheduledNanos(), Math.max(0, nowNanos - from), Math.max(0, nowNanos - handedNanos), windows);
  }

  /** A {@link HandedBatch} for each batch, as it goes to the sink. */
  static final class Of implements MapFunction<LineBatch, HandedBatch> {
    private static final long serialVersionUID = 1L;
    private final String backend;
    private final WindowGrid grid;

    Of(String backend, WindowGrid grid) {
      this.backend = backend;
      this.grid = grid;
    }

    @Override
    public HandedBatch map(LineBatch batch) {
      TreeMap<Long, Integer> perWindow = new TreeMap<>();
      for (int k = 0; k < batch.count(); k++) {
        perWindow.merge(grid.windowStart(batch.timestampMillis(k)), 1, Integer::sum);
      }
      // mutable collections, for Flink's Kryo
      List<BatchOutcome.WindowTally> tallies = new ArrayList<>(perWindow.size());
      perWindow.forEach((w, n) -> tallies.add(new BatchOutcome.WindowTally(w, n, n, new HashMap<>())));
      BatchOutcome outcome = new BatchOutcome(backend, batch.batchId(), batch.firstSeq(), batch.count(),
          BatchOutcome.Status.ACKED, 0, 1, batch.scheduledNanos(), 0, 0, tallies);
      return new HandedBatch(epochNanos(), outcome);
    }
  }

  static long epochNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }
}
