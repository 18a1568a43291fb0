package io.logbench.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.config.ConfigException;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.ledger.LedgerKafka;
import io.logbench.plan.RunConfig;
import io.logbench.sink.BackendConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Brings a finished run's {@code run.json} and ledger from Kafka ({@link LedgerKafka}: what
 * generate writes with {@code run.ledger_kafka}) into a local run directory, as {@code run.json}
 * and {@code ledger.csv}, so verify (and the report) can run on any machine that reaches Kafka,
 * without the directory generate wrote. Refuses a run that has not ended, one of another run
 * file, and a directory that holds another run.
 */
public final class LedgerFromKafka {

  private LedgerFromKafka() {}

  /**
   * What was brought.
   *
   * @param runId the run's id
   * @param rows ledger rows written to {@code ledger.csv}
   * @param backendsWithoutRows countable backends of the run file with no ledger row in Kafka
   */
  public record Fetched(String runId, int rows, List<String> backendsWithoutRows) {}

  /**
   * Reads run {@code runId} (or, when null, the run of {@code runDir}'s run.json) from {@code
   * kafka} and writes its run.json and ledger.csv into {@code runDir}.
   *
   * @throws ConfigException with a full sentence when no run id is known, the topics or the run
   *     are not in Kafka, the run has not ended (generate still running, or it crashed), it is a
   *     run of another run file, or {@code runDir} holds another run
   */
  public static Fetched fetch(LedgerKafka kafka, String runId, Path runDir, RunConfig config) throws IOException {
    return fetch(kafka, runId, io.logbench.rundir.RunDir.of(runDir), config);
  }

  /** As {@link #fetch(LedgerKafka, String, Path, RunConfig)}, for a run directory anywhere. */
  public static Fetched fetch(LedgerKafka kafka, String runId, io.logbench.rundir.RunDir runDir, RunConfig config)
      throws IOException {
    JsonNode local = VerifyPlan.runJson(runDir);
    String localId = VerifyPlan.runId(local);
    String id = runId != null ? runId : localId;
    String where = "topic " + kafka.topic() + " at " + kafka.bootstrap();
    if (id == null) {
      List<String> ids;
      try {
        ids = kafka.runIds();
      } catch (IOException e) {
        throw new ConfigException("verify: --run-id is missing; expected the id of the run to read from " + where
            + " (generate prints it, run.json's runId). " + e.getMessage());
      }
      List<String> last = ids.subList(Math.max(0, ids.size() - 5), ids.size());
      throw new ConfigException("verify: --run-id is missing; expected the id of the run to read from " + where
          + " (generate prints it, run.json's runId)" + (last.isEmpty() ? "; the topic holds no run yet."
              : "; its newest runs are " + String.join(", ", last) + "."));
    }
    if (localId != null && !localId.equals(id)) {
      throw new ConfigException(runDir.describe(VerifyPlan.RUN_JSON) + " is run " + localId + "'s, not run " + id
          + "'s; verify writes the run's run.json, ledger.csv and verdicts into the run directory, so expected"
          + " --run-dir DIR of run " + id + " or a directory of its own.");
    }
    LedgerKafka.Run run;
    try {
      run = kafka.read(id);
    } catch (IOException e) {
      throw new ConfigException(e.getMessage());
    }
    JsonNode json;
    try {
      json = new ObjectMapper().readTree(run.runJson());
    } catch (IOException e) {
      throw new ConfigException("The record of run " + id + " in topic " + kafka.runsTopic() + " is not run.json: "
          + e.getMessage());
    }
    if (!id.equals(VerifyPlan.runId(json))) {
      throw new ConfigException("The record of run " + id + " in topic " + kafka.runsTopic() + " names run "
          + VerifyPlan.runId(json) + "; expected run.json of run " + id + ".");
    }
    String name = json.path("name").asText(null);
    if (name != null && !name.equals(config.name())) {
      throw new ConfigException("Run " + id + " in " + where + " is a run of '" + name + "', not of the run file's '"
          + config.name() + "'; expected the run file generate ran with.");
    }
    if (!json.path("finishedMillis").canConvertToLong()) {
      throw new ConfigException("The ledger of run " + id + " in " + where + " is not complete: its run.json (topic "
          + kafka.runsTopic() + ") has no finishedMillis, so generate is still running, or it crashed or was killed"
          + " before its end and the rows of its last moments never reached Kafka. Verify once generate has ended"
          + " (a killed run can be continued with generate --resume RUN_DIR), or follow a live run with verify"
          + " --continuous on its run directory.");
    }
    List<LedgerEntry> rows = run.rows();
    if (rows.isEmpty()) {
      throw new ConfigException(where + " holds no ledger row of run " + id + ", although its run.json says it"
          + " ended; expected the rows generate's ledger writes there (was the topic deleted or compacted away?).");
    }
    Set<String> have = new HashSet<>();
    rows.forEach(r -> have.add(r.backend()));
    List<String> without = new ArrayList<>();
    for (BackendConfig b : config.backends()) {
      if (b.spec().capabilities().countable() && !have.contains(b.name())) {
        without.add(b.name());
      }
    }
    ZoneId zone = json.path("zone").isTextual() ? ZoneId.of(json.get("zone").asText()) : config.zone();
    runDir.write(VerifyPlan.RUN_JSON, run.runJson());
    LedgerFiles.writeCsv(runDir, rows, zone);
    return new Fetched(id, rows.size(), without);
  }
}
