package io.logbench.verify;

import io.logbench.replay.ReplayFiles;
import io.logbench.replay.Replays;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Path;

/**
 * Where the verifier reads a backend's restore records from, as often as it checks (a live run
 * may restore while it is verified).
 */
public interface ReplayView extends Serializable {

  /** The backend's restore records so far. */
  Replays read(String backend) throws IOException;

  /** No restore records: every extra copy is a DUPLICATE. */
  static ReplayView none() {
    return backend -> Replays.none();
  }

  /** The records of the run directory {@code runDir} ({@value ReplayFiles#RESTORES}). */
  static ReplayView files(Path runDir) {
    return files(io.logbench.rundir.RunDir.of(runDir));
  }

  /** The records of the run directory {@code runDir}, wherever it is (both layouts of {@link ReplayFiles}). */
  static ReplayView files(io.logbench.rundir.RunDir runDir) {
    ReplayFiles files = ReplayFiles.in(runDir);
    return backend -> Replays.of(files.read(), backend);
  }
}
