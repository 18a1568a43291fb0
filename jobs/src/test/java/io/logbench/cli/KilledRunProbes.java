package io.logbench.cli;

import io.logbench.job.RetainedCheckpoints;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.rundir.RunDir;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What the resume ITCases poll while a run they are about to kill goes on: whether a retained
 * checkpoint is there, and how many lines a backend's live ledger counts as sent so far.
 */
final class KilledRunProbes {

  private KilledRunProbes() {}

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
