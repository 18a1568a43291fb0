package io.logbench.job;

import io.logbench.rundir.RunDir;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checkpoints the generate job retained in its checkpoint directory ({@code run.checkpoint_dir}),
 * as Flink lays them out: {@code <dir>/<job id>/chk-<n>/_metadata}, one job id directory per job
 * that ran (a resumed run is a new job). Only a {@code chk-<n>} holding {@code _metadata} is
 * complete: Flink writes that file last. The directory may be local or on any Flink file system
 * ({@link RunDir}).
 */
public final class RetainedCheckpoints {

  /** The file Flink writes last into a completed checkpoint's directory. */
  public static final String METADATA = "_metadata";

  private static final Pattern CHK = Pattern.compile("chk-(\\d+)");

  private RetainedCheckpoints() {}

  /**
   * A completed checkpoint: its directory, number and when its metadata was written (epoch ms).
   */
  public record Checkpoint(RunDir dir, long id, long writtenMillis) {}

  /** As {@link #latest(RunDir)}, for a local directory. */
  public static Optional<Checkpoint> latest(Path dir) throws IOException {
    return latest(RunDir.of(dir));
  }

  /**
   * The newest completed checkpoint under {@code dir} (latest {@code _metadata}; of two written in
   * the same instant, the higher number), or empty when there is none or {@code dir} does not exist.
   */
  public static Optional<Checkpoint> latest(RunDir dir) throws IOException {
    Optional<Checkpoint> best = Optional.empty();
    for (String job : dir.directories("")) {
      for (String chk : dir.directories(job)) {
        Matcher m = CHK.matcher(chk);
        String metadata = job + "/" + chk + "/" + METADATA;
        if (!m.matches() || !dir.exists(metadata)) {
          continue;
        }
        Checkpoint c = new Checkpoint(dir.resolve(job + "/" + chk), Long.parseLong(m.group(1)),
            dir.modifiedMillis(metadata));
        if (best.isEmpty() || ORDER.compare(c, best.get()) > 0) {
          best = Optional.of(c);
        }
      }
    }
    return best;
  }

  private static final Pattern SAVEPOINT = Pattern.compile("savepoint-[0-9a-f]+-[0-9a-f]+");

  /**
   * The newest savepoint under {@code dir} (Flink's {@code savepoint-<job>-<random>} directories
   * holding {@value #METADATA}; its id is 0), or empty when there is none.
   */
  public static Optional<Checkpoint> latestSavepoint(RunDir dir) throws IOException {
    Optional<Checkpoint> best = Optional.empty();
    for (String sp : dir.directories("")) {
      String metadata = sp + "/" + METADATA;
      if (!SAVEPOINT.matcher(sp).matches() || !dir.exists(metadata)) {
        continue;
      }
      Checkpoint c = new Checkpoint(dir.resolve(sp), 0, dir.modifiedMillis(metadata));
      if (best.isEmpty() || ORDER.compare(c, best.get()) > 0) {
        best = Optional.of(c);
      }
    }
    return best;
  }

  private static final Comparator<Checkpoint> ORDER =
      Comparator.comparingLong(Checkpoint::writtenMillis).thenComparingLong(Checkpoint::id);
}
