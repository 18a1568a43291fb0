package io.logbench.sink.files;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchSender;
import io.logbench.sink.WindowGrid;
import io.logbench.sink.files.internal.OrderedLayoutWriter;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The {@code files} backend: writes a run's lines in the seed 004 layout ({@code
 * dir/YYYY-MM-DD.log}, one file per local day of the run's zone), byte-identical to the {@code
 * dataset} command's output for the same lines, and acknowledges every batch it wrote.
 *
 * <p>Unlike the network backends it is not a {@link BatchSender}: one Flink operator of
 * parallelism 1 puts the batches of all source stripes back in batch id order and appends them,
 * so the job wires it with {@link #write}. Keys of its block:
 *
 * <ul>
 *   <li>{@code kind}: {@value #KIND};
 *   <li>{@code name}: the backend's name in the ledger, default {@value #DEFAULT_NAME};
 *   <li>{@code dir}: the directory the day files go to (required; the seed script's {@code
 *       logdir}).
 * </ul>
 *
 * <p>The delivery keys every backend block may carry ({@code delivery}, {@code in_flight}, {@code
 * retry}, {@code thresholds}, {@code timeout}) are accepted and ignored: a local append either
 * works or fails the job, which then restores from its last checkpoint.
 *
 * @param name the backend's name in the ledger
 * @param dir the directory of the day files
 */
public record FilesBackend(String name, String dir) implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "files";
  public static final String DEFAULT_NAME = "files";

  /** Keys the delivery core reads from every backend block; this backend has no use for them. */
  private static final String[] DELIVERY_KEYS = {
    "delivery", "in_flight", "retry", "thresholds", "timeout"
  };

  public FilesBackend {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(dir, "dir");
    if (name.isBlank()) {
      throw new IllegalArgumentException("The files backend needs a non-blank name.");
    }
    if (dir.isBlank()) {
      throw new IllegalArgumentException("The files backend needs a directory to write to.");
    }
  }

  /** Reads a {@code files} backend block, with path-precise errors. */
  public static FilesBackend fromConfig(ConfigNode node) {
    String[] allowed = new String[DELIVERY_KEYS.length + 3];
    allowed[0] = "kind";
    allowed[1] = "name";
    allowed[2] = "dir";
    System.arraycopy(DELIVERY_KEYS, 0, allowed, 3, DELIVERY_KEYS.length);
    node.allowOnly(allowed);
    node.choice("kind", KIND, KIND);
    String name = node.string("name", DEFAULT_NAME);
    if (name.isBlank()) {
      throw node.invalid("name", name, "a non-blank backend name");
    }
    String dir = node.string("dir", null);
    if (dir == null) {
      throw ConfigException.missing(
          (node.path().isEmpty() ? "" : node.path() + ".") + "dir",
          "the directory the day files go to (the seed script's logdir)");
    }
    if (dir.isBlank()) {
      throw node.invalid("dir", dir, "a directory path");
    }
    return new FilesBackend(name, dir);
  }

  @Override
  public String kind() {
    return KIND;
  }

  /** Always fails: this backend is an operator, wired with {@link #write}. */
  @Override
  public BatchSender open(StreamCatalog streams) {
    throw new UnsupportedOperationException(
        "The files backend is not a BatchSender; wire it with FilesBackend.write(batches, spec, grid, zone).");
  }

  /**
   * A reader of the day files without the run's dataset: nginx-month lines are counted by their
   * time field (with the offset they carry) and numbered from 0; app-json lines need {@link
   * #openCounter(Dataset, long)}.
   */
  @Override
  public FilesCountReader openCounter(StreamCatalog streams) {
    return FilesCountReader.builder().dir(Path.of(dir)).build();
  }

  /**
   * A reader of the day files of a run of {@code dataset} whose first line is {@code firstSeq}
   * (the plan's first index): app-json lines are timed by their seq, nginx lines by their time
   * field in the dataset's zone, and nginx sequence ids are positional from {@code firstSeq}.
   */
  public FilesCountReader openCounter(Dataset dataset, long firstSeq) {
    FilesCountReader.Builder b = FilesCountReader.builder().dir(Path.of(dir)).dataset(dataset).firstSeq(firstSeq);
    if (dataset instanceof NginxMonthDataset nginx) {
      b.zone(nginx.zone());
    }
    return b.build();
  }

  /**
   * Appends {@code batches} (from any number of source stripes, with batch ids 0, 1, 2, ...) to
   * the day files of {@code spec.dir()} in batch id order, through one operator of parallelism
   * 1, and returns an {@link BatchOutcome.Status#ACKED ACKED} outcome per batch written, with
   * its lines per window of {@code grid}.
   *
   * @param zone the run's zone: which local day a line's file is
   */
  public static SingleOutputStreamOperator<BatchOutcome> write(
      DataStream<LineBatch> batches, FilesBackend spec, WindowGrid grid, ZoneId zone) {
    return batches
        .transform(
            "files " + spec.name(),
            TypeInformation.of(BatchOutcome.class),
            new OrderedLayoutWriter(spec.name(), spec.dir(), zone.getId(), grid))
        .uid("files-writer-" + spec.name())
        .setParallelism(1)
        .setMaxParallelism(1);
  }
}
