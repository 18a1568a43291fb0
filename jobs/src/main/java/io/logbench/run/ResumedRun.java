package io.logbench.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.job.RetainedCheckpoints;
import io.logbench.plan.RunConfig;
import io.logbench.plan.RunPlan;
import io.logbench.rundir.RunDir;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What {@code generate --resume RUN_DIR} continues: the run's id and start from {@code
 * RUN_DIR/run.json}, checked against the run file given, and the newest completed checkpoint in
 * the run's checkpoint directory. Anything that does not fit is a {@link RunRefusedException} (exit
 * 2) that names it.
 *
 * @param runId the run's id, kept by the resumed job so the lines it sends belong to the same run
 * @param runStartMillis the run's start, kept so the schedule and the ledger's windows stay put
 * @param checkpoint the checkpoint the job restarts from
 * @param runJson run.json as the killed run left it
 */
public record ResumedRun(String runId, long runStartMillis, RetainedCheckpoints.Checkpoint checkpoint, JsonNode runJson) {

  /**
   * Reads {@code runDir}'s run.json, checks it is a run of {@code config} ({@code file}), and
   * finds the checkpoint to resume from in {@code checkpointDir}.
   */
  public static ResumedRun of(RunDir runDir, Path file, RunConfig config, RunPlan plan, RunDir checkpointDir)
      throws IOException {
    String runJsonFile = runDir.describe("run.json");
    if (!runDir.exists("run.json")) {
      throw new RunRefusedException("--resume " + runDir + ": " + runJsonFile + " does not exist; expected the run"
          + " directory of a generate run that was stopped before its end.");
    }
    JsonNode run;
    try {
      run = new ObjectMapper().readTree(runDir.read("run.json"));
    } catch (IOException e) {
      throw new RunRefusedException("--resume " + runDir + ": " + runJsonFile + " is not readable JSON ("
          + e.getMessage() + ").");
    }
    List<String> wrong = new ArrayList<>();
    check(wrong, run, "name", config.name());
    check(wrong, run, "firstIndex", plan.firstIndex());
    check(wrong, run, "lines", plan.lines());
    check(wrong, run, "windowMillis", config.window().toMillis());
    check(wrong, run, "zone", config.zone().getId());
    if (!run.path("runId").isTextual() || !run.path("runStartMillis").canConvertToLong()) {
      wrong.add("it has no runId and runStartMillis (a run from before run ids)");
    }
    if (!wrong.isEmpty()) {
      throw new RunRefusedException("--resume " + runDir + ": " + runJsonFile + " is not a run of " + file + ": "
          + String.join("; ", wrong) + ". Resume a run with the run file it was started with.");
    }
    if (run.hasNonNull("finishedMillis") && !run.hasNonNull("stopped")) {
      throw new RunRefusedException("--resume " + runDir + ": run " + run.get("runId").asText() + " finished (run.json"
          + " has finishedMillis); there is nothing left to send.");
    }
    var checkpoint = RetainedCheckpoints.latest(checkpointDir);
    if (checkpoint.isEmpty()) {
      throw new RunRefusedException("--resume " + runDir + ": " + checkpointDir + " holds no completed checkpoint (a"
          + " chk-N directory with " + RetainedCheckpoints.METADATA + "); the run ended before its first"
          + " checkpoint, or its end (a whole run, or a clean stop) removed them: start it again without --resume.");
    }
    return new ResumedRun(run.get("runId").asText(), run.get("runStartMillis").asLong(), checkpoint.get(), run);
  }

  /**
   * run.json's {@code resumes} after this resume: the earlier resumes of the run, and this one
   * ({@code millis}: {@code nowMillis}; {@code checkpoint}: its directory; {@code checkpointId}).
   */
  public java.util.List<Object> resumes(long nowMillis) {
    java.util.List<Object> all = new ArrayList<>();
    runJson.path("resumes").forEach(all::add);
    java.util.Map<String, Object> now = new java.util.LinkedHashMap<>();
    now.put("millis", nowMillis);
    now.put("checkpoint", checkpoint.dir().absolute().location());
    now.put("checkpointId", checkpoint.id());
    all.add(now);
    return all;
  }

  /**
   * Adds to {@code wrong} a phrase when run.json's {@code field} is not {@code expected} (numbers
   * compared as longs): what a run directory's run must share with the run file that continues it.
   */
  static void check(List<String> wrong, JsonNode run, String field, Object expected) {
    JsonNode v = run.get(field);
    Object actual = v == null || v.isNull() ? null : v.isNumber() ? (Object) v.asLong() : v.asText();
    Object want = expected instanceof Number n ? (Object) n.longValue() : expected;
    if (!Objects.equals(actual, want)) {
      wrong.add(field + " is " + (actual == null ? "missing" : actual) + " there but " + want + " in the run file");
    }
  }
}
