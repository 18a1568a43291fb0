package io.logbench.job;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The checkpoints the generate job retained in its checkpoint directory ({@code run.checkpoint_dir}),
 * as Flink lays them out: {@code <dir>/<job id>/chk-<n>/_metadata}, one job id directory per job
 * that ran (a resumed run is a new job). Only a {@code chk-<n>} holding {@code _metadata} is
 * complete: Flink writes that file last.
 */
public final class RetainedCheckpoints {

  /** The file Flink writes last into a completed checkpoint's directory. */
  public static final String METADATA = "_metadata";

  private static final Pattern CHK = Pattern.compile("chk-(\\d+)");

  private RetainedCheckpoints() {}

  /** A completed checkpoint: its directory, number and when its metadata was written. */
  public record Checkpoint(Path dir, long id, FileTime written) {}

  /**
   * The newest completed checkpoint under {@code dir} (latest {@code _metadata}; of two written in
   * the same instant, the higher number), or empty when there is none or {@code dir} does not exist.
   */
  public static Optional<Checkpoint> latest(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (Stream<Path> jobs = Files.list(dir)) {
      List<Path> jobDirs = jobs.filter(Files::isDirectory).toList();
      Optional<Checkpoint> best = Optional.empty();
      for (Path job : jobDirs) {
        try (Stream<Path> chks = Files.list(job)) {
          for (Path chk : chks.toList()) {
            Matcher m = CHK.matcher(chk.getFileName().toString());
            Path metadata = chk.resolve(METADATA);
            if (!m.matches() || !Files.isRegularFile(metadata)) {
              continue;
            }
            Checkpoint c = new Checkpoint(chk, Long.parseLong(m.group(1)), Files.getLastModifiedTime(metadata));
            if (best.isEmpty() || ORDER.compare(c, best.get()) > 0) {
              best = Optional.of(c);
            }
          }
        }
      }
      return best;
    }
  }

  private static final Comparator<Checkpoint> ORDER =
      Comparator.comparing(Checkpoint::written).thenComparingLong(Checkpoint::id);
}
