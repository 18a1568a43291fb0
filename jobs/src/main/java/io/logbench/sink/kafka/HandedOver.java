package io.logbench.sink.kafka;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.WindowGrid;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.MapFunction;

/** An ACKED outcome for each batch handed to a sink that commits on its own (Kafka transactions). */
final class HandedOver
    implements MapFunction<LineBatch, BatchOutcome> {
  private static final long serialVersionUID = 1L;
  private final String backend;
  private final WindowGrid grid;

  HandedOver(String backend, WindowGrid grid) {
    this.backend = backend;
    this.grid = grid;
  }

  @Override
  public BatchOutcome map(LineBatch batch) {
    TreeMap<Long, Integer> perWindow = new TreeMap<>();
    for (int k = 0; k < batch.count(); k++) {
      perWindow.merge(grid.windowStart(batch.timestampMillis(k)), 1, Integer::sum);
    }
    List<BatchOutcome.WindowTally> tallies = new ArrayList<>();
    perWindow.forEach((w, n) -> tallies.add(new BatchOutcome.WindowTally(w, n, n, new HashMap<>())));
    long now = System.currentTimeMillis() * 1_000_000L;
    return new BatchOutcome(backend, batch.batchId(), batch.firstSeq(), batch.count(),
        BatchOutcome.Status.ACKED, 0, 1, batch.scheduledNanos(),
        Math.max(0, now - batch.scheduledNanos()), 0, tallies);
  }
}
