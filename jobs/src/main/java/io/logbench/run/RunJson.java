package io.logbench.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.report.Versions;
import io.logbench.rundir.RunDir;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A run directory's {@value #FILE}: what the verifier, the report and a resume need to know of a
 * run besides its run file (name, id, start, first line, lines, window, zone, versions), with
 * {@code finishedMillis} once the command that ran it ended (the report's wall time), and extra
 * fields a run adds ({@code resumes}, {@code stopped}, a canary's {@code gaps}).
 */
public final class RunJson {

  /** The file's name in the run directory. */
  public static final String FILE = "run.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private RunJson() {}

  /** As {@link #write(RunDir, Path, RunPlan, long, String, Long, Map)}, in a local directory, with no extra field. */
  public static void write(Path runDir, Path configFile, RunPlan plan, long runStartMillis, String runId,
      Long finishedMillis) throws IOException {
    write(RunDir.of(runDir), configFile, plan, runStartMillis, runId, finishedMillis, Map.of());
  }

  /**
   * Writes {@value #FILE} into {@code runDir} with {@code extra} fields after the run's own. It is
   * written whole at once (a temporary file moved into place, or one create), so a continuous
   * verify that starts as soon as the file exists never reads half of it.
   *
   * @param finishedMillis when the command that ran the run ended, or null while it runs
   */
  public static void write(RunDir runDir, Path configFile, RunPlan plan, long runStartMillis, String runId,
      Long finishedMillis, Map<String, Object> extra) throws IOException {
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("name", plan.config().name());
    run.put("runId", runId);
    run.put("config", configFile.toAbsolutePath().toString());
    run.put("runStartMillis", runStartMillis);
    run.put("firstIndex", plan.firstIndex());
    run.put("lines", plan.lines());
    run.put("windowMillis", plan.config().window().toMillis());
    run.put("zone", plan.config().zone().getId());
    Versions versions = Versions.current();
    run.put("logbenchVersion", versions.logbench());
    run.put("flinkVersion", versions.flinkRuntime());
    if (finishedMillis != null) {
      run.put("finishedMillis", finishedMillis);
    }
    run.putAll(extra);
    runDir.write(FILE, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(run));
  }

  /**
   * Writes the run directory's {@value #FILE} to the runs topic of {@code run.ledger_kafka}, where
   * {@code verify --ledger-kafka} reads it with the ledger rows.
   */
  public static void publish(RunConfig config, RunDir runDir, String runId) throws IOException {
    config.ledgerKafka().writeRun(runId, runDir.read(FILE));
  }
}
