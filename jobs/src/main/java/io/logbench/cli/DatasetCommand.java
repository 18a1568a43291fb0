package io.logbench.cli;

import io.logbench.dataset.Dataset;
import io.logbench.job.DatasetJob;
import io.logbench.layout.SeedLayout.LayoutFile;
import io.logbench.layout.SeedLayout;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code dataset CONFIG --out DIR [--from TIME] [--until TIME] [--parallelism N]}: writes the
 * run's lines (or a time slice of them, by their own time) in the seed's file layout, in
 * parallel on Flink, with a progress line.
 */
@Command(name = "dataset", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
    description = "Write the dataset (or a time slice of it) as files in the seed's layout"
        + " (logdir/YYYY-MM-DD.log), in parallel on Flink.")
final class DatasetCommand implements Callable<Integer> {

  /** Most lines per chunk: enough work per task, small enough to spread a day over the tasks. */
  static final long MAX_CHUNK_LINES = 1L << 20;

  /** Chunk size for a slice: about four chunks per task, at least 50,000 lines. */
  static long chunkLines(long lines, int parallelism) {
    return Math.max(50_000L, Math.min(MAX_CHUNK_LINES, lines / (4L * parallelism)));
  }

  @Parameters(index = "0", paramLabel = "CONFIG", description = "The run file.")
  Path file;

  @Option(names = "--out", paramLabel = "DIR", required = true,
      description = "The directory the files go to: a local or mounted path (not an object store's URI).")
  String outDir;

  Path dir;

  @Option(names = "--from", paramLabel = "TIME", description = "Start of the slice, a whole minute (default: the run's).")
  Instant fromTime;

  @Option(names = "--until", paramLabel = "TIME", description = "End of the slice, a whole minute (default: the run's).")
  Instant untilTime;

  @Option(names = "--parallelism", paramLabel = "N", description = "Flink parallelism (default: the run file's).")
  Integer parallelismOption;

  @Option(names = "--direct-io", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Write the whole blocks inside each chunk with O_DIRECT, past the page cache, where the file"
          + " system takes it (default); --no-direct-io writes every byte through the page cache.")
  boolean directIo = true;

  @Option(names = "--quiet", description = "No progress lines while the job runs.")
  boolean quiet;

  @Mixin ClusterOption cluster = new ClusterOption();

  private final PrintStream out;
  private final PrintStream err;

  DatasetCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /**
   * The {@code --out} directory: a path or a {@code file:} URI. Another URI is refused rather than
   * taken for a local folder of that name: several tasks write each day file at once, each chunk
   * at its offset, which object stores do not allow.
   */
  static Path localOut(String value) {
    if (io.logbench.rundir.RunDir.isRemote(value)) {
      throw new UsageException("dataset: --out " + value + " is not a local or mounted directory; several tasks"
          + " write each of the dataset's files at once, each chunk at its offset, which object stores and other"
          + " file systems reached by URI do not allow, so expected a path (on a cluster, storage mounted at the"
          + " same path on every machine).");
    }
    return value.regionMatches(true, 0, "file:", 0, 5) ? Path.of(java.net.URI.create(value)) : Path.of(value);
  }

  @Override
  public Integer call() throws Exception {
    dir = localOut(outDir);
    ClusterOption.Jobs jobs = cluster.open("dataset", new org.apache.flink.configuration.Configuration(), err);
    RunConfig config = ConfigLoader.load(file);
    RunPlan plan = RunPlan.of(config);
    Dataset dataset = plan.dataset();

    // the run's own span, by the dataset's time, on whole minutes
    long runFrom = floorMinute(dataset.timestampMillis(plan.firstIndex()));
    long runUntil = plan.lines() == 0 ? runFrom
        : ceilMinute(dataset.timestampMillis(plan.firstIndex() + plan.lines() - 1) + 1);
    long from = slice("--from", fromTime, runFrom, runFrom, runUntil);
    long until = slice("--until", untilTime, runUntil, runFrom, runUntil);
    if (until <= from) {
      throw new UsageException("dataset: --until " + Format.time(until, config.zone())
          + " is not after --from " + Format.time(from, config.zone()) + ".");
    }
    int parallelism = parallelismOption == null ? config.writerParallelism() : parallelismOption;
    if (parallelism < 1) {
      throw new UsageException("dataset: --parallelism " + parallelism + " is not valid; expected 1 or more.");
    }

    if (config.dataset().published() != null) {
      err.println("dataset: the run replays " + config.dataset().published() + "; its lines are made here from the"
          + " dataset block of the topic's manifest, the same lines the topic holds.");
    }
    long t0 = System.nanoTime();
    long lines = dataset.countBefore(until) - dataset.countBefore(from);
    List<LayoutFile> files =
        SeedLayout.plan(dataset, config.zone(), from, until, chunkLines(lines, parallelism));
    long sized = System.nanoTime();
    err.printf(Locale.ROOT, "dataset: %s lines in %d files, %s, laid out in %.1f s%n",
        Format.count(files.stream().mapToLong(LayoutFile::lines).sum()), files.size(),
        Format.bytes(files.stream().mapToLong(LayoutFile::size).sum()), (sized - t0) / 1e9);

    AtomicReference<DatasetJob.Progress> latest = new AtomicReference<>();
    DatasetJob.Result result;
    try (jobs; Progress progress = Progress.start(Progress.mode(quiet, err), err,
        () -> List.of(progressLine(latest.get(), (System.nanoTime() - sized) / 1e9)))) {
      result = new DatasetJob(dataset, dir, files, directIo).run(jobs.environment(parallelism), latest::set);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    out.printf(Locale.ROOT, "wrote %s lines (%s) in %d files under %s in %.1f s (%s lines/s), %d chunks, parallelism %d%n",
        Format.count(result.lines()), Format.bytes(result.bytes()), result.files(), dir, seconds,
        Format.rate(result.lines() / seconds), result.chunks(), parallelism);
    return 0;
  }

  /** One line: share done, lines, bytes, rate and the time left at that rate. */
  static String progressLine(DatasetJob.Progress p, double seconds) {
    if (p == null) {
      return String.format(Locale.ROOT, "dataset: starting the job (%.0f s)", seconds);
    }
    double rate = p.linesDone() / Math.max(seconds, 1e-9);
    String eta = p.linesDone() >= p.lines() ? "done"
        : rate > 0 ? Progress.duration((long) ((p.lines() - p.linesDone()) * 1000 / rate)) : "?";
    return String.format(Locale.ROOT, "dataset: %5.1f%%  %s/%s lines  %s  %s lines/s  ETA %s",
        100.0 * p.linesDone() / Math.max(1, p.lines()), Format.count(p.linesDone()),
        Format.count(p.lines()), Format.bytes(p.bytesDone()), Format.rate(rate), eta);
  }

  private static long slice(String name, Instant t, long fallback, long min, long max) {
    if (t == null) {
      return fallback;
    }
    long ms = t.toEpochMilli();
    if (ms % 60_000 != 0 || ms < min || ms > max) {
      throw new UsageException("dataset: " + name + " " + t + " is not valid; expected a whole minute within the run's span, "
          + Instant.ofEpochMilli(min) + " to " + Instant.ofEpochMilli(max) + ".");
    }
    return ms;
  }

  private static long floorMinute(long ms) {
    return Math.floorDiv(ms, 60_000L) * 60_000L;
  }

  private static long ceilMinute(long ms) {
    return -Math.floorDiv(-ms, 60_000L) * 60_000L;
  }
}
