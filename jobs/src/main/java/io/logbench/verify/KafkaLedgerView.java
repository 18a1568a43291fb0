package io.logbench.verify;

import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerKafka;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A finished run's ledger read from Kafka ({@link LedgerKafka}) by the verify job's own tasks, so
 * a verify job on a cluster needs no run directory on its TaskManagers: each task reads the run's
 * rows once, on its first check, and keeps them (the run has ended, so they no longer change).
 */
final class KafkaLedgerView implements LedgerView {

  private static final long serialVersionUID = 1L;

  private final LedgerKafka kafka;
  private final String runId;
  private transient Map<String, Map<Long, LedgerEntry>> byBackend;

  KafkaLedgerView(LedgerKafka kafka, String runId) {
    this.kafka = kafka;
    this.runId = runId;
  }

  @Override
  public Snapshot read(String backend) throws IOException {
    if (byBackend == null) {
      Map<String, Map<Long, LedgerEntry>> rows = new HashMap<>();
      for (LedgerEntry e : kafka.read(runId).rows()) {
        rows.computeIfAbsent(e.backend(), b -> new HashMap<>()).put(e.windowStartMillis(), e);
      }
      byBackend = rows;
    }
    return new Snapshot(new HashMap<>(byBackend.getOrDefault(backend, Map.of())), true);
  }
}
