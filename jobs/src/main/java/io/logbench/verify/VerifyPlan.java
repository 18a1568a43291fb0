package io.logbench.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.config.ConfigException;
import io.logbench.config.Durations;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.ledger.stream.Ledger;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.rundir.RunDir;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.schedule.TimestampMode;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.RunContext;
import io.logbench.sink.WindowGrid;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a verification checks: the run's start (from {@value #RUN_JSON}), its windows (the plan's
 * span on a grid aligned to local midnight like the ledger's, {@code WindowGrid.aligned(window,
 * zone, near)}), and one {@link VerifyTarget} per backend that can count back.
 *
 * <p><b>Windows.</b> The verifier's window is {@code --window} when given, else the run file's
 * {@code window}. It must be a whole multiple of the ledger's window, on the ledger's grid: each
 * window's acknowledged lines are then the sum of the ledger rows inside it ({@link
 * LedgerRollup}). The ledger's window is run.json's {@code windowMillis} (written by generate);
 * for a run directory from before that, the size of the ledger's own rows ({@code window_end -
 * window_start}); without rows either, the run file's window.
 */
public final class VerifyPlan {

  /** The run directory's file that holds {@code {"runStartMillis": <epoch ms>, ...}}. */
  public static final String RUN_JSON = "run.json";

  private final RunPlan plan;
  private final long runStartMillis;
  private final List<VerifyTarget> targets;
  private final Map<String, String> skipped;
  private final long[] span;
  private final long windowMillis;
  private final long ledgerWindowMillis;

  private VerifyPlan(RunPlan plan, long runStartMillis, List<VerifyTarget> targets, Map<String, String> skipped,
      long[] span, long windowMillis, long ledgerWindowMillis) {
    this.plan = plan;
    this.runStartMillis = runStartMillis;
    this.targets = targets;
    this.skipped = skipped;
    this.span = span;
    this.windowMillis = windowMillis;
    this.ledgerWindowMillis = ledgerWindowMillis;
  }

  /** The verification of {@code config}'s run in {@code runDir} at the run file's window. */
  public static VerifyPlan of(RunConfig config, Path runDir, VerifySettings settings) throws IOException {
    return of(config, runDir, settings, null);
  }

  /**
   * The verification of {@code config}'s run in {@code runDir}.
   *
   * @param window the verifier's window ({@code --window}), or null for the run file's
   * @throws ConfigException when the run's start cannot be known (no run.json for compressed or
   *     now timestamps), the window is not a whole multiple of the ledger's or off its grid, or
   *     the run file has no backend to check
   */
  public static VerifyPlan of(RunConfig config, Path runDir, VerifySettings settings, Duration window)
      throws IOException {
    return of(config, RunDir.of(runDir), settings, window);
  }

  /** As {@link #of(RunConfig, Path, VerifySettings, Duration)}, for a run directory anywhere. */
  public static VerifyPlan of(RunConfig config, RunDir runDir, VerifySettings settings, Duration window)
      throws IOException {
    return of(config, runDir, settings, window, LedgerView.files(runDir, !settings.continuous()));
  }

  /**
   * As {@link #of(RunConfig, Path, VerifySettings, Duration)}, with the verify job's tasks reading
   * the ledger from {@code ledger} (such as {@link LedgerView#kafka}) rather than from {@code
   * runDir}'s files; the plan itself still reads run.json and the ledger's grid from {@code runDir}.
   */
  public static VerifyPlan of(RunConfig config, Path runDir, VerifySettings settings, Duration window,
      LedgerView ledger) throws IOException {
    return of(config, RunDir.of(runDir), settings, window, ledger);
  }

  /** As {@link #of(RunConfig, Path, VerifySettings, Duration, LedgerView)}, for a run directory anywhere. */
  public static VerifyPlan of(RunConfig config, RunDir runDir, VerifySettings settings, Duration window,
      LedgerView ledger) throws IOException {
    RunPlan plan = RunPlan.of(config);
    JsonNode runJson = runJson(runDir);
    long runStart = runStartMillis(config, plan, runDir, runJson);
    ExpectedCounts expected = plan.expectedCounts(runStart);
    long[] span = plan.span(runStart);
    // the ledger's grid is anchored near the first line's own time (original timestamps) or the
    // run's start, as generate anchors it
    long near = config.timestamps() == TimestampMode.ORIGINAL ? span[0] : runStart;
    String source = window != null ? "--window" : "the run file's window";
    long size = window != null ? window.toMillis() : config.window().toMillis();
    WindowGrid grid = WindowGrid.aligned(size, config.zone(), near);
    long ledgerWindow = ledgerGrid(config, runDir, runJson, near, grid, source);
    List<Long> starts = Ledger.windowStarts(grid, span[0], span[1]);
    List<VerifyTarget> targets = new ArrayList<>();
    Map<String, String> skipped = new LinkedHashMap<>();
    RunContext run = new RunContext(runId(runJson), plan.dataset().streams(), plan.dataset(), plan.firstIndex(),
        expected);
    for (BackendConfig b : config.backends()) {
      if (!b.spec().capabilities().countable()) {
        skipped.put(b.name(), "a " + b.spec().kind() + " backend keeps nothing to count");
        continue;
      }
      targets.add(new VerifyTarget(b.spec(), run, expected,
          starts.isEmpty() ? span[0] : starts.get(0), starts.size(), size, ledgerWindow, ledger, settings,
          ReplayView.files(runDir)));
    }
    if (targets.isEmpty()) {
      throw new ConfigException("backends: no backend of the run file can be counted back; expected at least one"
          + " backend that is not discard.");
    }
    return new VerifyPlan(plan, runStart, targets, skipped, span, size, ledgerWindow);
  }

  /**
   * The ledger's window, checked against the verifier's grid: the verifier's window must be a
   * whole multiple of it and start on one of the ledger's window starts.
   */
  static long ledgerGrid(RunConfig config, RunDir runDir, JsonNode runJson, long near, WindowGrid grid,
      String source) throws IOException {
    long size;
    String from;
    long anchor;
    List<LedgerEntry> rows = ledgerRows(runDir, config);
    JsonNode w = runJson == null ? null : runJson.get("windowMillis");
    if (w != null && w.canConvertToLong() && w.asLong() > 0) {
      size = w.asLong();
      from = runDir.describe(RUN_JSON) + "'s windowMillis";
    } else if (!rows.isEmpty()) {
      LedgerEntry r = rows.get(0);
      size = r.windowEndMillis() - r.windowStartMillis();
      from = "the ledger's rows";
    } else {
      size = config.window().toMillis();
      from = "the run file's window, as " + runDir.describe(RUN_JSON) + " does not say";
    }
    if (!rows.isEmpty()) {
      anchor = rows.get(0).windowStartMillis();
    } else {
      ZoneId zone = runJson != null && runJson.path("zone").isTextual() ? zoneOf(runJson.get("zone").asText(), runDir)
          : config.zone();
      anchor = WindowGrid.aligned(size, zone, near).anchorMillis();
    }
    String ours = Durations.format(Duration.ofMillis(grid.sizeMillis()));
    String theirs = Durations.format(Duration.ofMillis(size));
    if (grid.sizeMillis() % size != 0) {
      throw new ConfigException("window: " + ours + " (" + source + ") is not a whole multiple of the run's ledger"
          + " window " + theirs + " (from " + from + "); the ledger counts acknowledged lines per " + theirs
          + " window, so verify can only add up whole ledger windows: expected " + theirs + " or a multiple of it.");
    }
    if (Math.floorMod(grid.anchorMillis() - anchor, size) != 0) {
      throw new ConfigException("window: " + ours + " windows (" + source + ") in zone " + config.zone()
          + " start at " + Instant.ofEpochMilli(grid.anchorMillis()) + ", which is not the start of any of"
          + " the run's ledger windows of " + theirs + " (from " + from + "; one starts at "
          + Instant.ofEpochMilli(anchor) + "); expected a window and zone whose windows start on the"
          + " ledger's grid.");
    }
    return size;
  }

  private static ZoneId zoneOf(String id, RunDir runDir) {
    try {
      return ZoneId.of(id);
    } catch (java.time.DateTimeException e) {
      throw new ConfigException(runDir.describe(RUN_JSON) + ": zone: " + id + " is not a time zone; expected an id"
          + " such as America/Sao_Paulo or UTC.");
    }
  }

  /** The ledger rows in the run directory so far (merged, else the backends' own), or none. */
  private static List<LedgerEntry> ledgerRows(RunDir runDir, RunConfig config) throws IOException {
    List<LedgerEntry> rows = LedgerFiles.readLive(runDir);
    for (BackendConfig b : config.backends()) {
      if (!rows.isEmpty()) {
        break;
      }
      RunDir own = runDir.resolve(LedgerView.PER_BACKEND + "/" + b.name());
      if (own.exists()) {
        rows = LedgerFiles.readLive(own);
      }
    }
    return rows;
  }

  /** run.json's content, or null when there is none. */
  public static JsonNode runJson(Path runDir) throws IOException {
    return runJson(RunDir.of(runDir));
  }

  /** As {@link #runJson(Path)}, for a run directory anywhere. */
  public static JsonNode runJson(RunDir runDir) throws IOException {
    if (!runDir.exists(RUN_JSON)) {
      return null;
    }
    try {
      return new ObjectMapper().readTree(runDir.read(RUN_JSON));
    } catch (IOException e) {
      throw new ConfigException(runDir.describe(RUN_JSON) + " is not JSON: " + e.getMessage());
    }
  }

  /** run.json's runId, or null when there is no run.json or it names none (an older run). */
  public static String runId(JsonNode runJson) {
    JsonNode id = runJson == null ? null : runJson.get("runId");
    return id == null || !id.isTextual() ? null : id.asText();
  }

  /** run.json's runStartMillis; else, for original timestamps, the first line's time. */
  public static long runStartMillis(RunConfig config, RunPlan plan, Path runDir, JsonNode runJson) {
    return runStartMillis(config, plan, RunDir.of(runDir), runJson);
  }

  /** As {@link #runStartMillis(RunConfig, RunPlan, Path, JsonNode)}, for a run directory anywhere. */
  public static long runStartMillis(RunConfig config, RunPlan plan, RunDir runDir, JsonNode runJson) {
    String file = runDir.describe(RUN_JSON);
    if (runJson != null) {
      JsonNode start = runJson.get("runStartMillis");
      if (start == null || !start.canConvertToLong()) {
        throw new ConfigException(file + ": runStartMillis: missing; expected the run's start in epoch milliseconds.");
      }
      return start.asLong();
    }
    if (config.timestamps() == TimestampMode.ORIGINAL) {
      return plan.dataset().timestampMillis(plan.firstIndex());
    }
    throw new ConfigException(file + " does not exist: with " + config.timestamps().name().toLowerCase()
        + " timestamps the verifier needs the run's start, which generate writes there; is " + runDir
        + " the run's directory?");
  }

  public RunPlan plan() {
    return plan;
  }

  public long runStartMillis() {
    return runStartMillis;
  }

  public List<VerifyTarget> targets() {
    return targets;
  }

  /** Backends not checked, with why. */
  public Map<String, String> skipped() {
    return skipped;
  }

  /** The verifier's window. */
  public long windowMillis() {
    return windowMillis;
  }

  /** The ledger's window, of which {@link #windowMillis} is a whole multiple. */
  public long ledgerWindowMillis() {
    return ledgerWindowMillis;
  }

  /** First line's time and one past the last's. */
  public long[] span() {
    return span.clone();
  }
}
