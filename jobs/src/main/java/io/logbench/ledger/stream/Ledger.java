package io.logbench.ledger.stream;

import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.stream.AggregateWindows;
import io.logbench.ledger.stream.DedupOutcomes;
import io.logbench.ledger.stream.LedgerFilesWriter;
import io.logbench.ledger.stream.SeenBatches;
import io.logbench.ledger.stream.WindowDelta;
import io.logbench.ledger.stream.WindowSeeds;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchOutcomeTypeInfo;
import io.logbench.sink.WindowGrid;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * What each backend acknowledged per window, made from the {@link BatchOutcome}s of all backends
 * (their union) by Flink operators:
 *
 * <ol>
 *   <li>dedup, keyed by (backend, batch-id block): the <b>first</b> outcome of a (backend, batch
 *       id) counts and any later one is dropped (metric {@code duplicateOutcomes}). Every outcome
 *       is final (emitted after all retries), so a second one can only be a replay of a batch
 *       after a restore; what the backend holds was written by the first delivery, which the
 *       later answer (e.g. a 409 for a document that exists) must not overwrite. State and input
 *       roll back together, so an outcome the restored checkpoint does not cover counts once;
 *   <li>per-window running totals, keyed by (backend, window start), each change emitted as an
 *       upsert {@link LedgerEntry} carrying the window's expected count from {@link
 *       ExpectedCounts};
 *   <li>windows of the run's span no batch reached still get a row (expected &gt; 0, sent 0),
 *       emitted when the input ends (the final watermark of a bounded run).
 * </ol>
 *
 * <p>{@link Builder#openEnded Open-ended} (a canary), there is no span and no row for windows no
 * batch reached, and each window's state is cleared a horizon after its end, so a run of any
 * length keeps the open windows only.
 *
 * <p>The generate job calls {@link #attach} (or {@link #rows} and {@link #writeFiles}); every
 * source must be bounded so the final watermark arrives. <b>Kafka hook:</b> the upsert stream
 * {@link #rows} returns is the place to add the Kafka ledger writer ({@code rows.sinkTo(...)},
 * Avro LedgerEntry keyed by backend and window start); nothing here writes to Kafka yet.
 */
public final class Ledger {

  private final List<String> backends;
  private final WindowGrid grid;
  private final ExpectedCounts expected;
  private final long fromMillis;
  private final long toMillis;
  private final ZoneId zone;
  private final io.logbench.rundir.RunDir runDir;
  private final boolean upsertLog;
  private final long horizonMillis;

  private Ledger(Builder b) {
    this.backends = List.copyOf(b.backends);
    this.grid = b.grid;
    this.expected = b.expected;
    this.fromMillis = b.fromMillis;
    this.toMillis = b.toMillis;
    this.zone = b.zone;
    this.runDir = b.runDir;
    this.upsertLog = b.upsertLog;
    this.horizonMillis = b.horizonMillis;
  }

  /** Distinct operator ids per ledger, so one job can hold a ledger per backend. */
  private String uidSuffix() {
    return "-" + String.join("-", backends);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Upserts of ledger rows from {@code outcomes} (the union of all backends' outcomes). */
  public DataStream<LedgerEntry> rows(DataStream<BatchOutcome> outcomes) {
    DataStream<WindowDelta> deltas =
        outcomes
            .keyBy(o -> SeenBatches.key(o.backend(), o.batchId()), Types.STRING)
            .process(new DedupOutcomes(horizonMillis == 0 ? 0 : horizonMillis + grid.sizeMillis()))
            .returns(BatchOutcomeTypeInfo.INSTANCE)
            .uid("ledger-dedup" + uidSuffix())
            .name("ledger dedup")
            .flatMap((BatchOutcome o, org.apache.flink.util.Collector<WindowDelta> out) -> WindowDelta.of(o).forEach(out::collect))
            .returns(TypeInformation.of(WindowDelta.class))
            .name("ledger windows of batch");
    List<Long> starts = horizonMillis > 0 ? List.of() : windowStarts(grid, fromMillis, toMillis);
    if (starts.isEmpty()) {
      return aggregate(deltas);
    }
    DataStream<WindowDelta> seeds =
        outcomes.getExecutionEnvironment()
            .fromSequence(0, starts.size() - 1L)
            .setParallelism(1)
            .name("ledger windows of run")
            .flatMap(new WindowSeeds(backends, starts.get(0), grid.sizeMillis()))
            .returns(TypeInformation.of(WindowDelta.class))
            .setParallelism(1)
            .name("ledger window seeds");
    return aggregate(deltas.union(seeds));
  }

  private DataStream<LedgerEntry> aggregate(DataStream<WindowDelta> deltas) {
    return deltas
        .keyBy(WindowDelta::key, Types.STRING)
        .process(new AggregateWindows(expected, grid.sizeMillis(), horizonMillis))
        .returns(TypeInformation.of(LedgerEntry.class))
        .uid("ledger-windows" + uidSuffix())
        .name("ledger window totals");
  }

  /**
   * Writes {@value LedgerFiles#CSV} and {@value RunSummary#FILE} when the input ends, and the
   * {@value LedgerFiles#JSONL} upsert log as rows change (unless switched off), in the run
   * directory, through one operator of parallelism 1.
   */
  public void writeFiles(DataStream<LedgerEntry> rows) {
    if (runDir == null) {
      throw new IllegalStateException("The ledger has no run directory to write its files to; set runDir.");
    }
    rows.transform(
            "ledger files",
            Types.VOID,
            new LedgerFilesWriter(runDir.absolute(), zone.getId(), upsertLog))
        .uid("ledger-files" + uidSuffix())
        .setParallelism(1)
        .setMaxParallelism(1);
  }

  /** {@link #rows} then {@link #writeFiles}; returns the upsert stream (for the Kafka hook). */
  public DataStream<LedgerEntry> attach(DataStream<BatchOutcome> outcomes) {
    DataStream<LedgerEntry> rows = rows(outcomes);
    writeFiles(rows);
    return rows;
  }

  /** Starts of the grid's windows that overlap {@code [fromMillis, toMillis)}. */
  public static List<Long> windowStarts(WindowGrid grid, long fromMillis, long toMillis) {
    List<Long> out = new ArrayList<>();
    if (toMillis <= fromMillis) {
      return out;
    }
    for (long s = grid.windowStart(fromMillis); s < toMillis; s += grid.sizeMillis()) {
      out.add(s);
    }
    return out;
  }

  /**
   * Builds a {@link Ledger}. Backends, grid, expected counts, span and zone are required; the run
   * directory is required for {@link #writeFiles}; {@link #upsertLog} defaults to {@value
   * #DEFAULT_UPSERT_LOG}.
   */
  public static final class Builder {

    public static final boolean DEFAULT_UPSERT_LOG = true;

    private List<String> backends;
    private WindowGrid grid;
    private ExpectedCounts expected;
    private long fromMillis;
    private long toMillis = Long.MIN_VALUE;
    private ZoneId zone;
    private io.logbench.rundir.RunDir runDir;
    private boolean upsertLog = DEFAULT_UPSERT_LOG;
    private long horizonMillis;

    private Builder() {}

    /**
     * An open-ended ledger (a canary, which never ends) instead of a bounded run's: no span, no row
     * for windows no batch reached (a window of a canary's schedule with no line is a gap), and
     * each window's state cleared {@code horizon} after the window's end (the dedup's blocks a
     * window later), so the state holds the open windows only ({@link AggregateWindows}, {@link
     * DedupOutcomes}). Its rows are an upsert stream for a consumer of its own; {@link #writeFiles}
     * is for bounded runs.
     */
    public Builder openEnded(java.time.Duration horizon) {
      require(horizon != null && horizon.toMillis() > 0, "An open-ended ledger needs a horizon of at least 1 ms, not "
          + horizon + ".");
      this.horizonMillis = horizon.toMillis();
      return this;
    }

    /** Names of every backend of the run (each gets a row for every window that expects lines). */
    public Builder backends(List<String> backends) {
      this.backends = backends;
      return this;
    }

    /** The run's windows. */
    public Builder grid(WindowGrid grid) {
      this.grid = grid;
      return this;
    }

    /** The run's expected counts; its run start must be the source's. */
    public Builder expected(ExpectedCounts expected) {
      this.expected = expected;
      return this;
    }

    /** The time the run's lines cover, {@code [fromMillis, toMillis)} (e.g. RunPlan.span). */
    public Builder span(long fromMillis, long toMillis) {
      this.fromMillis = fromMillis;
      this.toMillis = toMillis;
      return this;
    }

    /** The run's zone (times in the files carry its offset). */
    public Builder zone(ZoneId zone) {
      this.zone = zone;
      return this;
    }

    /** Where {@value LedgerFiles#CSV}, {@value LedgerFiles#JSONL} and the summary go. */
    public Builder runDir(Path runDir) {
      return runDir(io.logbench.rundir.RunDir.of(runDir));
    }

    /** As {@link #runDir(Path)}, for a run directory anywhere ({@link LedgerFilesWriter}'s layouts). */
    public Builder runDir(io.logbench.rundir.RunDir runDir) {
      this.runDir = runDir;
      return this;
    }

    /** Whether to append each changed row to {@value LedgerFiles#JSONL}. */
    public Builder upsertLog(boolean upsertLog) {
      this.upsertLog = upsertLog;
      return this;
    }

    public Ledger build() {
      require(backends != null && !backends.isEmpty(), "A ledger needs the names of the run's backends.");
      require(backends.stream().distinct().count() == backends.size(),
          "Backend names must be unique in a ledger, but were " + backends + ".");
      require(backends.stream().noneMatch(b -> b.indexOf('\u0000') >= 0),
          "Backend names must not contain NUL characters.");
      require(grid != null, "A ledger needs the run's window grid.");
      require(grid.sizeMillis() > 0, "A ledger's windows must be at least 1 ms long, not " + grid.sizeMillis() + " ms.");
      require(expected != null, "A ledger needs the run's expected counts.");
      Objects.requireNonNull(zone, "A ledger needs the run's zone.");
      if (horizonMillis > 0) {
        return new Ledger(this);
      }
      require(toMillis != Long.MIN_VALUE, "A ledger needs the run's span.");
      require(toMillis >= fromMillis, "The run's span must not end before it starts, but was ["
          + fromMillis + ", " + toMillis + ").");
      long windows = windowStarts(grid, fromMillis, Math.min(toMillis, fromMillis + 1)).size()
          + (toMillis - fromMillis) / grid.sizeMillis();
      require(windows <= ExpectedCounts.MAX_WINDOWS, "The run's span holds about " + windows
          + " windows, more than the " + ExpectedCounts.MAX_WINDOWS + " allowed.");
      Objects.requireNonNull(zone, "A ledger needs the run's zone.");
      return new Ledger(this);
    }

    private static void require(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }
  }
}
