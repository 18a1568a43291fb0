package io.logbench.ledger;

import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome.WindowTally;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Builds synthetic batch outcomes (with mutable collections, as Flink's Kryo needs). */
final class Outcomes {

  private Outcomes() {}

  static WindowTally tally(long start, int sent, int acked, Map<String, Integer> rejected) {
    return new WindowTally(start, sent, acked, new HashMap<>(rejected));
  }

  static WindowTally acked(long start, int lines) {
    return tally(start, lines, lines, Map.of());
  }

  static BatchOutcome outcome(String backend, long batchId, Status status, WindowTally... windows) {
    int lines = 0;
    for (WindowTally w : windows) {
      lines += w.sent();
    }
    return new BatchOutcome(backend, batchId, batchId * 100, lines, status, status == Status.ACKED ? 204 : 400,
        1, 0, 0, 0, new ArrayList<>(List.of(windows)));
  }
}
