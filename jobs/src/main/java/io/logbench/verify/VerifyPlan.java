package io.logbench.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.config.ConfigException;
import io.logbench.ledger.stream.Ledger;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.schedule.TimestampMode;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.RunContext;
import io.logbench.sink.WindowGrid;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a verification checks: the run's start (from {@value #RUN_JSON}), its windows (the plan's
 * span on the grid aligned like the ledger's, {@code WindowGrid.aligned(window, zone,
 * spanStart)}), and one {@link VerifyTarget} per backend that can count back.
 */
public final class VerifyPlan {

  /** The run directory's file that holds {@code {"runStartMillis": <epoch ms>}}. */
  public static final String RUN_JSON = "run.json";

  private final RunPlan plan;
  private final long runStartMillis;
  private final List<VerifyTarget> targets;
  private final Map<String, String> skipped;
  private final long[] span;

  private VerifyPlan(RunPlan plan, long runStartMillis, List<VerifyTarget> targets, Map<String, String> skipped,
      long[] span) {
    this.plan = plan;
    this.runStartMillis = runStartMillis;
    this.targets = targets;
    this.skipped = skipped;
    this.span = span;
  }

  /**
   * The verification of {@code config}'s run in {@code runDir}.
   *
   * @throws ConfigException when the run's start cannot be known (no run.json for compressed or
   *     now timestamps) or the run file has no backend to check
   */
  public static VerifyPlan of(RunConfig config, Path runDir, VerifySettings settings) throws IOException {
    RunPlan plan = RunPlan.of(config);
    long runStart = runStartMillis(config, plan, runDir);
    ExpectedCounts expected = plan.expectedCounts(runStart);
    long[] span = plan.span(runStart);
    long window = config.window().toMillis();
    WindowGrid grid = WindowGrid.aligned(window, config.zone(), span[0]);
    List<Long> starts = Ledger.windowStarts(grid, span[0], span[1]);
    LedgerView ledger = LedgerView.files(runDir, !settings.continuous());
    List<VerifyTarget> targets = new ArrayList<>();
    Map<String, String> skipped = new LinkedHashMap<>();
    RunContext run = new RunContext(runId(runDir), plan.dataset().streams(), plan.dataset(), plan.firstIndex(),
        expected);
    for (BackendConfig b : config.backends()) {
      if (!b.spec().capabilities().countable()) {
        skipped.put(b.name(), "a " + b.spec().kind() + " backend keeps nothing to count");
        continue;
      }
      targets.add(new VerifyTarget(b.spec(), run, expected,
          starts.isEmpty() ? span[0] : starts.get(0), starts.size(), window, ledger, settings,
          ReplayView.files(runDir)));
    }
    if (targets.isEmpty()) {
      throw new ConfigException("backends: no backend of the run file can be counted back; expected at least one"
          + " backend that is not discard.");
    }
    return new VerifyPlan(plan, runStart, targets, skipped, span);
  }

  /** run.json's runId, or null when there is no run.json or it names none (an older run). */
  static String runId(Path runDir) throws IOException {
    Path file = runDir.resolve(RUN_JSON);
    if (!Files.exists(file)) {
      return null;
    }
    JsonNode id = new ObjectMapper().readTree(file.toFile()).get("runId");
    return id == null || !id.isTextual() ? null : id.asText();
  }

  /** run.json's runStartMillis; else, for original timestamps, the first line's time. */
  static long runStartMillis(RunConfig config, RunPlan plan, Path runDir) throws IOException {
    Path file = runDir.resolve(RUN_JSON);
    if (Files.exists(file)) {
      JsonNode root;
      try {
        root = new ObjectMapper().readTree(file.toFile());
      } catch (IOException e) {
        throw new ConfigException(file + " is not JSON: " + e.getMessage());
      }
      JsonNode start = root == null ? null : root.get("runStartMillis");
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

  /** First line's time and one past the last's. */
  public long[] span() {
    return span.clone();
  }
}
