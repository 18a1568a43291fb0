package io.logbench.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.canary.CanarySettings;
import io.logbench.job.CanaryJob;
import io.logbench.job.RetainedCheckpoints;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunIds;
import io.logbench.plan.RunPlan;
import io.logbench.replay.ReplayFiles;
import io.logbench.rundir.RunDir;
import io.logbench.schedule.Gaps;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import io.logbench.sink.WindowGrid;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One start of a canary in its run directory, below the command line: the first start makes the
 * run (id, start, {@code run.json}); every later start with the same directory goes on with that
 * run, from the newest checkpoint or clean stop's savepoint, and the time it was down becomes a
 * gap: from past the last batch any source may have sent (its lease) to the first batch due once
 * the job is up, nothing is sent and nothing is expected ({@code run.json}'s {@code gaps}). Only
 * one canary runs in a directory at a time ({@value #LOCK}). Old checkpoints and savepoints are
 * deleted when a start has chosen the one it goes on from.
 */
public final class CanaryRun implements AutoCloseable {

  /** The lock file a running canary holds in its run directory. */
  public static final String LOCK = "canary.lock";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern JOB_ID = Pattern.compile("[0-9a-f]{32}");
  private static final Pattern LEASE = Pattern.compile("stripe-(\\d+)\\.lease");

  private final Path file;
  private final RunConfig config;
  private final CanarySettings settings;
  private final Path runDir;
  private final RunDir checkpointDir;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final String runId;
  private final long runStart;
  private final RunPlan plan;
  private final Gaps gaps;
  private final Gap newGap;
  private final RetainedCheckpoints.Checkpoint restoreFrom;
  private final boolean continues;
  private final long firstWindowStart;
  private final Map<String, Object> extra = new LinkedHashMap<>();

  /** A gap this start added: lines {@code [fromIndex, toIndex)}, due from {@code fromMillis} to {@code toMillis}. */
  public record Gap(long fromIndex, long toIndex, long fromMillis, long toMillis) {}

  private CanaryRun(Path file, RunConfig config, CanarySettings settings, Path runDir, Duration startLead,
      FileChannel lockChannel, FileLock lock) throws IOException {
    this.file = file;
    this.config = config;
    this.settings = settings;
    this.runDir = runDir;
    this.lockChannel = lockChannel;
    this.lock = lock;
    this.checkpointDir = config.checkpointDir(RunDir.of(runDir));
    long now = System.currentTimeMillis();
    long start = now + startLead.toMillis();
    Path runJson = runDir.resolve(RunJson.FILE);
    if (!Files.exists(runJson)) {
      runId = RunIds.create(config.name(), now, new SecureRandom());
      runStart = start;
      plan = RunPlan.canary(config, runId);
      gaps = Gaps.none();
      newGap = null;
      restoreFrom = null;
      continues = false;
      firstWindowStart = grid().windowStart(runStart);
      return;
    }
    JsonNode run = readRunJson(runJson);
    runId = run.get("runId").asText();
    runStart = run.get("runStartMillis").asLong();
    plan = RunPlan.canary(config, runId);
    check(run);
    List<long[]> ranges = new ArrayList<>();
    List<Object> gapList = new ArrayList<>();
    run.path("gaps").forEach(g -> {
      ranges.add(new long[] {g.path("fromIndex").asLong(), g.path("toIndex").asLong()});
      gapList.add(g);
    });
    run.path("resumes").forEach(r -> {
      @SuppressWarnings("unchecked")
      List<Object> list = (List<Object>) extra.computeIfAbsent("resumes", k -> new ArrayList<>());
      list.add(r);
    });
    restoreFrom = newest(RetainedCheckpoints.latest(checkpointDir),
        RetainedCheckpoints.latestSavepoint(checkpointDir.resolve(CanaryJob.SAVEPOINTS))).orElse(null);
    continues = restoreFrom == null;
    newGap = downtime(start);
    if (newGap != null) {
      ranges.add(new long[] {newGap.fromIndex(), newGap.toIndex()});
      Map<String, Object> g = new LinkedHashMap<>();
      g.put("fromIndex", newGap.fromIndex());
      g.put("toIndex", newGap.toIndex());
      g.put("from", Instant.ofEpochMilli(newGap.fromMillis()).toString());
      g.put("to", Instant.ofEpochMilli(newGap.toMillis()).toString());
      gapList.add(g);
    }
    gaps = Gaps.of(ranges);
    extra.put("gaps", gapList);
    Map<String, Object> resume = new LinkedHashMap<>();
    resume.put("millis", now);
    resume.put("checkpoint", restoreFrom == null ? null : restoreFrom.dir().absolute().location());
    @SuppressWarnings("unchecked")
    List<Object> resumes = (List<Object>) extra.computeIfAbsent("resumes", k -> new ArrayList<>());
    resumes.add(resume);
    // without a snapshot the checks start afresh: from the first window after the restart
    firstWindowStart = grid().windowStart(newGap != null ? newGap.toMillis() : start);
  }

  /**
   * Prepares a start of the canary of {@code config} ({@code file}) in {@code runDirOption} (null:
   * the run file's {@code run.dir}), a local directory: takes its lock, and reads the run it goes
   * on with, if any.
   *
   * @param startLead how long after now the job is up (a first start's run begins then)
   * @throws RunRefusedException when the run file is not a canary's, the directory is not local,
   *     another canary runs there, or its run.json is another run's
   */
  public static CanaryRun prepare(Path file, RunConfig config, CanarySettings settings, String runDirOption,
      Duration startLead) throws IOException {
    if (!config.isCanary()) {
      throw new RunRefusedException(file + " has no canary: block; a canary's run file has one (docs/canary.md), even"
          + " empty (canary: {}).");
    }
    if (config.backends().isEmpty()) {
      throw new RunRefusedException(file + ": backends: missing; expected a list of backend blocks for the canary"
          + " to send to and count.");
    }
    RunDir dir = runDirOption != null ? RunDir.of(runDirOption) : config.runDir();
    Path runDir = dir.local().orElseThrow(() -> new RunRefusedException("The canary's run directory " + dir
        + " is not a local or mounted directory; a canary writes its day files in place: expected a path."));
    Files.createDirectories(runDir);
    FileChannel channel = FileChannel.open(runDir.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      channel.close();
      throw new RunRefusedException("Another canary runs in " + runDir + " (it holds " + runDir.resolve(LOCK)
          + "); stop it first, or give this one a run directory of its own.");
    }
    try {
      return new CanaryRun(file, config, settings, runDir, startLead, channel, lock);
    } catch (IOException | RuntimeException e) {
      lock.release();
      channel.close();
      throw e;
    }
  }

  private WindowGrid grid() {
    return WindowGrid.aligned(config.window().toMillis(), config.zone(), runStart);
  }

  private static JsonNode readRunJson(Path runJson) {
    try {
      return JSON.readTree(Files.readAllBytes(runJson));
    } catch (IOException e) {
      throw new RunRefusedException(runJson + " is not readable JSON (" + e.getMessage() + "); expected the run.json"
          + " of a canary, or a run directory without one for a new run.");
    }
  }

  /** The run directory's run must be a canary of this run file (same name, rate, windows, zone). */
  private void check(JsonNode run) {
    List<String> wrong = new ArrayList<>();
    if (!run.path("canary").asBoolean(false)) {
      wrong.add("it is not a canary's run (no \"canary\": true)");
    }
    ResumedRun.check(wrong, run, "name", config.name());
    ResumedRun.check(wrong, run, "firstIndex", plan.firstIndex());
    ResumedRun.check(wrong, run, "lines", plan.lines());
    ResumedRun.check(wrong, run, "windowMillis", config.window().toMillis());
    ResumedRun.check(wrong, run, "zone", config.zone().getId());
    ResumedRun.check(wrong, run, "batchLines", (long) config.batchLines());
    if (!wrong.isEmpty()) {
      throw new RunRefusedException(runDir.resolve(RunJson.FILE) + " is not a run of the canary " + file + ": "
          + String.join("; ", wrong) + ". Start this canary in a run directory of its own (--run-dir), or"
          + " with the run file it was started with.");
    }
  }

  private static Optional<RetainedCheckpoints.Checkpoint> newest(Optional<RetainedCheckpoints.Checkpoint> a,
      Optional<RetainedCheckpoints.Checkpoint> b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return b.get().writtenMillis() >= a.get().writtenMillis() ? b : a;
  }

  /**
   * The gap of this start: from the batch after the highest lease any backend's stripe left (the
   * last batch the run may have sent) to the first batch due at {@code upMillis}; null when there
   * is none (the job is up before the next batch was due, or a lease is unreadable, when the
   * sources catch up instead).
   */
  private Gap downtime(long upMillis) throws IOException {
    long highest = ReplayFiles.Lease.NONE;
    ReplayFiles replay = ReplayFiles.in(runDir);
    // a source per delivery: a count block behind a pipeline's write has its write's leases
    java.util.Set<String> delivered = new java.util.LinkedHashSet<>();
    config.backends().forEach(b -> delivered.add(b.spec().deliveredAs()));
    for (String name : delivered) {
      Path dir = runDir.resolve(ReplayFiles.LEASES).resolve(name);
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try (DirectoryStream<Path> leases = Files.newDirectoryStream(dir)) {
        for (Path f : leases) {
          Matcher m = LEASE.matcher(f.getFileName().toString());
          if (!m.matches()) {
            continue;
          }
          try (ReplayFiles.Lease lease = replay.lease(name, Integer.parseInt(m.group(1)))) {
            long previous = lease.previous();
            if (previous == ReplayFiles.Lease.UNKNOWN) {
              return null;
            }
            highest = Math.max(highest, previous);
          }
        }
      }
    }
    int batch = config.batchLines();
    long fromIndex = (highest + 1) * batch;
    long upNanos = (upMillis - runStart) * 1_000_000L;
    long toBatch = firstBatchDue(upNanos, batch);
    long toIndex = Math.min(toBatch * batch, plan.lines());
    if (toIndex <= fromIndex) {
      return null;
    }
    return new Gap(fromIndex, toIndex, runStart + plan.schedule().dueNanos(fromIndex) / 1_000_000L,
        runStart + plan.schedule().dueNanos(toIndex) / 1_000_000L);
  }

  /** The first batch due at or after {@code offsetNanos} from the run's start (a binary search). */
  private long firstBatchDue(long offsetNanos, int batch) {
    long lo = 0;
    long hi = (plan.lines() + batch - 1) / batch;
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (plan.schedule().dueNanos(mid * batch) >= offsetNanos) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  public RunConfig config() {
    return config;
  }

  public RunPlan plan() {
    return plan;
  }

  public Path runDir() {
    return runDir;
  }

  public String runId() {
    return runId;
  }

  public long runStartMillis() {
    return runStart;
  }

  /** Every gap of the run, this start's included. */
  public Gaps gaps() {
    return gaps;
  }

  /** The gap this start adds, or null. */
  public Gap newGap() {
    return newGap;
  }

  /** The snapshot this start goes on from, or null (a first start, or none was left). */
  public RetainedCheckpoints.Checkpoint restoreFrom() {
    return restoreFrom;
  }

  /** Whether this start goes on with a run the directory holds (else it is the run's first). */
  public boolean continuesRun() {
    return continues || restoreFrom != null;
  }

  /**
   * The backends' pre-flight checks of a first start, over the run's first window: "warning: "
   * and a sentence each (a later start's backends hold its own lines, which the checks would take
   * for another run's).
   *
   * @throws IllegalStateException naming a backend that is not ready
   */
  public List<String> preflight() {
    if (continuesRun()) {
      return List.of();
    }
    long now = System.currentTimeMillis();
    RunContext run = new RunContext(runId, plan.dataset().streams(), plan.dataset(), plan.firstIndex());
    long[] span = {runStart, runStart + config.window().toMillis()};
    Preflight checks = Preflight.of(run, span, config.window().toMillis(), config.zone(), span[0], now);
    List<String> warnings = new ArrayList<>();
    for (BackendConfig b : config.backends()) {
      try {
        for (String w : b.spec().preflight(checks)) {
          warnings.add("warning: " + w);
        }
      } catch (IOException e) {
        throw new IllegalStateException("Backend " + b.name() + " is not ready: " + e.getMessage());
      }
    }
    return warnings;
  }

  /**
   * Writes {@code run.json} (with {@code "canary": true}, the batch size, the gaps and the starts),
   * deletes the checkpoints and savepoints this start does not go on from, and returns the job.
   *
   * @param notes what the start says on the way (the run it goes on with, the gap)
   */
  public CanaryJob start(Consumer<String> notes) throws IOException {
    extra.put("canary", true);
    extra.put("batchLines", config.batchLines());
    extra.put("rate", config.schedule().rate());
    RunJson.write(RunDir.of(runDir), file, plan, runStart, runId, null, extra);
    dropOldSnapshots();
    CanaryJob job = new CanaryJob(plan, settings, runDir, runId, runStart, gaps, checkpointDir, firstWindowStart);
    if (restoreFrom != null) {
      job.resumeFrom(restoreFrom.dir());
      notes.accept("going on with run " + runId + " from " + (restoreFrom.id() == 0 ? "savepoint " : "checkpoint "
          + restoreFrom.id() + " ") + "(" + restoreFrom.dir() + ")");
    } else if (continues) {
      job.continuesRun();
      notes.accept("going on with run " + runId + " without a checkpoint (none was left): its windows are checked"
          + " again from the restart on");
    }
    if (newGap != null) {
      notes.accept("down from " + Instant.ofEpochMilli(newGap.fromMillis()) + " to " + Instant.ofEpochMilli(
          newGap.toMillis()) + ": lines " + (plan.firstIndex() + newGap.fromIndex()) + " to "
          + (plan.firstIndex() + newGap.toIndex() - 1) + " are a gap, never sent and not expected");
    }
    return job;
  }

  /**
   * Deletes what the checkpoint directory holds besides the snapshot this start goes on from:
   * other jobs' checkpoint folders (a restore claims its checkpoint, and Flink deletes it once
   * subsumed, leaving the folder) and older savepoints, so restarts never pile them up.
   */
  private void dropOldSnapshots() throws IOException {
    RunDir keep = restoreFrom == null ? null : restoreFrom.dir().absolute();
    for (String d : checkpointDir.directories("")) {
      if (JOB_ID.matcher(d).matches() && (keep == null || !keep.location().startsWith(
          checkpointDir.resolve(d).absolute().location() + "/"))) {
        checkpointDir.delete(d);
      }
    }
    RunDir savepoints = checkpointDir.resolve(CanaryJob.SAVEPOINTS);
    for (String d : savepoints.directories("")) {
      if (keep == null || !keep.location().equals(savepoints.resolve(d).absolute().location())) {
        savepoints.delete(d);
      }
    }
  }

  /** Writes the final run.json of a clean stop: when, and the signal. */
  public void stopped(String signal, String ending) throws IOException {
    Map<String, Object> stopped = new LinkedHashMap<>();
    stopped.put("signal", signal == null ? "none" : signal);
    stopped.put("millis", System.currentTimeMillis());
    stopped.put("ending", ending);
    extra.put("stopped", stopped);
    RunJson.write(RunDir.of(runDir), file, plan, runStart, runId, null, extra);
  }

  @Override
  public void close() throws IOException {
    lock.release();
    lockChannel.close();
  }
}
