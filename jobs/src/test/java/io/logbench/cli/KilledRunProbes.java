package io.logbench.cli;

import io.logbench.job.RetainedCheckpoints;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.rundir.RunDir;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The run the stop and resume ITCases kill or stop mid-run, and what they poll while it goes on:
 * whether a retained checkpoint is there, and how many lines a backend's live ledger counts as
 * sent so far.
 */
final class KilledRunProbes {

  private KilledRunProbes() {}

  /**
   * The run file's lines up to its {@code run} block: {@code lines} app-json lines at 40 lines/s
   * of dataset time in 10-s windows, sent at 40 lines/s in 10-line batches over two tasks, long
   * enough that a child JVM slow to start on a loaded machine is still mid-run when it is stopped.
   */
  static String head(String name, long lines) {
    return String.join("\n",
        "name: " + name,
        "dataset: {kind: app-json, lines: " + lines + ", streams: 3, start: \"2021-05-01T03:00:00Z\", rate: 40}",
        "schedule: {kind: constant, rate: 40}",
        "timestamps: original",
        "window: 10s",
        "zone: UTC",
        "batch: {lines: 10}",
        "parallelism: 2",
        "");
  }

  /** Lines the live ledger of {@code backend} in {@code run} counts as sent so far. */
  static long sentSoFar(RunDir run, String backend) {
    try {
      return LedgerFiles.readLive(run.resolve("ledger/" + backend)).stream().mapToLong(LedgerEntry::sent).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether {@code checkpoints} holds a complete retained checkpoint. */
  static boolean hasCheckpoint(RunDir checkpoints) {
    try {
      return RetainedCheckpoints.latest(checkpoints).isPresent();
    } catch (IOException e) {
      return false; // Flink is writing it: look again
    }
  }
}
