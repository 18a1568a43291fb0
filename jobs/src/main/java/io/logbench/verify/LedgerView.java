package io.logbench.verify;

import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.rundir.RunDir;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Where the verifier reads one backend's ledger rows from, as often as it checks. */
public interface LedgerView extends Serializable {

  /** The backend's rows by window start, and whether they are the finished run's. */
  Snapshot read(String backend) throws IOException;

  /** Rows of one backend by window start; {@code isFinal} when the run has finished. */
  record Snapshot(Map<Long, LedgerEntry> rows, boolean isFinal) {}

  /**
   * The ledger files of {@code runDir}: final once {@value LedgerFiles#CSV} exists there (generate
   * writes it when every backend has finished). Before that, a backend's own ledger under {@code
   * runDir/ledger/<backend>/} as generate writes it while the run goes (final for that backend once
   * its own {@value LedgerFiles#CSV} exists), else the run directory's {@value LedgerFiles#JSONL}
   * upsert log so far (or nothing yet); final regardless when {@code assumeFinal}.
   */
  static LedgerView files(Path runDir, boolean assumeFinal) {
    return files(RunDir.of(runDir), assumeFinal);
  }

  /** As {@link #files(Path, boolean)}, for a run directory anywhere (either layout of the log). */
  static LedgerView files(RunDir runDir, boolean assumeFinal) {
    RunDir d = runDir.absolute();
    return backend -> {
      boolean done = d.exists(LedgerFiles.CSV);
      RunDir own = d.resolve(PER_BACKEND + "/" + backend);
      RunDir from = d;
      if (!done && own.exists()) {
        from = own;
        done = own.exists(LedgerFiles.CSV);
      }
      Map<Long, LedgerEntry> rows = new HashMap<>();
      for (LedgerEntry e : LedgerFiles.readLive(from)) {
        if (e.backend().equals(backend)) {
          rows.put(e.windowStartMillis(), e);
        }
      }
      return new Snapshot(rows, done || assumeFinal);
    };
  }

  /**
   * The finished run {@code runId}'s ledger in Kafka, read by each task of the verify job itself
   * (once: the run has ended), so the tasks need no run directory; always final.
   */
  static LedgerView kafka(io.logbench.ledger.LedgerKafka kafka, String runId) {
    return new KafkaLedgerView(kafka, runId);
  }

  /** The run directory's folder of per-backend ledgers, as generate writes them. */
  String PER_BACKEND = "ledger";
}
