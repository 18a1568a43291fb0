package io.logbench.sink.files;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.schedule.TimestampMode;
import io.logbench.layout.SeedLayout;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchOutcomeTypeInfo;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Capabilities;
import io.logbench.sink.CommonSettings;
import io.logbench.sink.DeliveryContext;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import io.logbench.sink.WindowGrid;
import io.logbench.sink.files.internal.OrderedLayoutWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The {@code files} backend: writes a run's lines in the seed 004 layout ({@code
 * dir/YYYY-MM-DD.log}, one file per local day of the run's zone), byte-identical to the {@code
 * dataset} command's output for the same lines, and acknowledges every batch it wrote.
 *
 * <p>Unlike the network backends it is not a {@link BatchSender}: one Flink operator of
 * parallelism 1 puts the batches of all source stripes back in batch id order and appends them
 * ({@link #deliver}). Its own key is {@code dir}, the directory the day files go to (required;
 * the seed script's {@code logdir}). The delivery keys every backend block may carry are accepted
 * and have no effect: a local append either works or fails the job, which then restores from its
 * last checkpoint.
 *
 * <p>Runs: lines stay byte-identical to the seed script's, so they carry no run id and counts
 * cannot tell runs apart. A run writing a day replaces that day's file (it opens it truncated),
 * so a directory per run is the way to keep runs apart; {@link #preflight} warns when the
 * directory already holds day files of the run's days.
 *
 * @param name the backend's name in the ledger
 * @param dir the directory of the day files
 */
public record FilesBackend(String name, String dir) implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "files";
  public static final String DEFAULT_NAME = "files";

  public static final BackendType TYPE = BackendType.of(KIND, List.of("dir"), FilesBackend::parse);

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

  /** Reads the keys of a {@code files} backend block, with path-precise errors. */
  static FilesBackend parse(ConfigNode node, CommonSettings common) {
    String dir = node.string("dir", null);
    if (dir == null) {
      throw ConfigException.missing(
          (node.path().isEmpty() ? "" : node.path() + ".") + "dir",
          "the directory the day files go to (the seed script's logdir)");
    }
    if (dir.isBlank()) {
      throw node.invalid("dir", dir, "a directory path");
    }
    if (io.logbench.rundir.RunDir.isRemote(dir)) {
      // the day files are appended to line by line, which an object store cannot do; writing them
      // to a local folder of that name instead would lose them on a cluster
      throw node.invalid("dir", dir, "a local or mounted directory path (the files backend appends to its day"
          + " files, which object stores and other file systems reached by URI do not allow; on a cluster,"
          + " mount shared storage at the same path on every machine)");
    }
    if (dir.regionMatches(true, 0, "file:", 0, 5)) {
      dir = java.nio.file.Path.of(java.net.URI.create(dir)).toString();
    }
    return new FilesBackend(common.name(), dir);
  }

  @Override
  public String kind() {
    return KIND;
  }

  /**
   * A warning when {@code dir} already holds day files of the run's days (another run's): the
   * run replaces each when it writes the day's first line, so that run's lines there are lost,
   * and until then a verify counts them as this run's (day files carry no run id). Only file
   * names are looked at, nothing is read.
   */
  @Override
  public List<String> preflight(Preflight before) {
    Path d = Path.of(dir);
    if (before.toMillis() == before.fromMillis() || !Files.isDirectory(d)) {
      return List.of();
    }
    LocalDate last = Instant.ofEpochMilli(before.toMillis() - 1).atZone(before.zone()).toLocalDate();
    List<String> held = new ArrayList<>();
    for (LocalDate day = Instant.ofEpochMilli(before.fromMillis()).atZone(before.zone()).toLocalDate();
        !day.isAfter(last); day = day.plusDays(1)) {
      if (Files.exists(d.resolve(SeedLayout.fileName(day)))) {
        held.add(SeedLayout.fileName(day));
      }
    }
    if (held.isEmpty()) {
      return List.of();
    }
    String files = held.size() <= 3 ? String.join(", ", held)
        : String.join(", ", held.subList(0, 3)) + " and " + (held.size() - 3) + " more";
    return List.of("Backend '" + name + "': " + dir + " already holds day files of the run's days (" + files
        + "), from another run; the run replaces each when it writes that day's first line, losing"
        + " their lines, and until then verify counts them as this run's (day files carry no run id)."
        + " Use an empty directory per run.");
  }

  /**
   * Counts back from the day files, not filtered by run (lines carry no run id); ids are sequence
   * ids; needs its batches in order.
   */
  @Override
  public Capabilities capabilities() {
    return new Capabilities(true, Capabilities.LineIds.SEQUENCE, true, false);
  }

  /** Always fails: this backend is an operator, wired by {@link #deliver}. */
  @Override
  public BatchSender open(RunContext run) {
    throw new UnsupportedOperationException(
        "The files backend is not a BatchSender; its batches go through FilesBackend.deliver.");
  }

  /** Appends the batches in batch id order through one writer ({@link #write}). */
  @Override
  public DataStream<BatchOutcome> deliver(DataStream<LineBatch> batches, DeliveryContext context) {
    return write(batches, this, context.grid(), context.zone(), context.skipped());
  }

  /**
   * A reader of the day files of the run: app-json lines are timed by their seq, nginx lines by
   * their position from the run's first index (sequence ids) and their time field in the dataset's
   * zone. With {@code compressed} or {@code now} timestamps, each line's time is the one it
   * carried in the run, from its sequence id through the run's timeline (for nginx lines the id is
   * positional, so a deleted line moves the times of the lines after it by one position).
   * Without the run's dataset, nginx-month lines are counted by their time field (with the offset
   * they carry) and numbered from 0.
   */
  @Override
  public FilesCountReader openCounter(RunContext run) {
    FilesCountReader.Builder b = FilesCountReader.builder().dir(Path.of(dir));
    Dataset dataset = run.dataset();
    if (dataset != null) {
      b.dataset(dataset).firstSeq(run.firstIndex()).zone(dataset.zone());
      if (run.times() != null && run.times().timeline().mode() != TimestampMode.ORIGINAL) {
        b.lineTimes(run::lineMillis);
      }
    }
    return b.build();
  }

  /** Searches by one pass over the day files, by line time and the key's JSON field. */
  @Override
  public FilesSearch openSearch(RunContext run) {
    return new FilesSearch(openCounter(run), Path.of(dir));
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
    return write(batches, spec, grid, zone, io.logbench.schedule.SkippedBatches.none());
  }

  /** As {@link #write(DataStream, FilesBackend, WindowGrid, ZoneId)}, never waiting for the {@code skipped} batches. */
  public static SingleOutputStreamOperator<BatchOutcome> write(DataStream<LineBatch> batches, FilesBackend spec,
      WindowGrid grid, ZoneId zone, io.logbench.schedule.SkippedBatches skipped) {
    return batches
        .transform(
            "files " + spec.name(),
            BatchOutcomeTypeInfo.INSTANCE,
            new OrderedLayoutWriter(spec.name(), spec.dir(), zone.getId(), grid, skipped))
        .uid("files-writer-" + spec.name())
        .setParallelism(1)
        .setMaxParallelism(1);
  }

  /** The sizes of the day files in {@code dir} ({@code YYYY-MM-DD.log}), this run's and any other's. */
  @Override
  public java.util.Optional<io.logbench.sink.Footprint> footprint(RunContext run) throws java.io.IOException {
    Path d = Path.of(dir);
    if (!java.nio.file.Files.isDirectory(d)) {
      return java.util.Optional.empty();
    }
    long bytes = 0;
    int files = 0;
    try (java.nio.file.DirectoryStream<Path> listing =
        java.nio.file.Files.newDirectoryStream(d, "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].log")) {
      for (Path f : listing) {
        bytes += java.nio.file.Files.size(f);
        files++;
      }
    }
    return java.util.Optional.of(new io.logbench.sink.Footprint(bytes, "sizes of the " + files + " day file(s) in "
        + dir));
  }
}
