package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.job.RetainedCheckpoints;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.replay.ReplayFiles;
import io.logbench.replay.RestoreRecord;
import io.logbench.rundir.RunDir;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.testing.ChildLogbench;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local {@code generate} whose JVM dies mid-run ({@code kill -9}), continued with {@code
 * generate --resume RUN_DIR} from its newest retained checkpoint, against a real OpenSearch (in
 * this JVM) and files: the resumed run keeps the run id, appends to the same ledger without
 * counting a window twice, records what it sent again, and verify finds every window OK or
 * REPLAYED, none MISSING or DUPLICATE. A run directory that cannot be resumed is a clear error.
 */
class GenerateResumeITCase {

  private static final int LINES = 2_400;
  private static final Duration START = Duration.ofMinutes(3);

  @TempDir Path dir;

  private Path config(String index) throws IOException {
    Path config = dir.resolve("run.yaml");
    Files.writeString(config, KilledRunProbes.head("resume-it", LINES) + String.join("\n",
        "run: {checkpoint_interval: 500ms}",
        "backends:",
        // a long timeout: a resend after a timeout on a loaded machine would be a replay nobody recorded
        "  - {kind: opensearch, name: opensearch, url: '" + OpenSearchTestServer.get().url() + "', index: " + index
            + ", timeout: 60s}",
        "  - {kind: files, name: files, dir: '" + dir.resolve("logdir") + "'}",
        ""));
    return config;
  }

  @Test
  void aRunKilledMidRunResumesFromItsCheckpointAndVerifiesWithoutALoss() throws Exception {
    String index = "resume-it-" + UUID.randomUUID().toString().substring(0, 8);
    Path config = config(index);
    Path runDir = dir.resolve("run");
    Path checkpoints = runDir.resolve("checkpoints");

    // the first attempt: killed (SIGKILL, nothing runs after it) once a checkpoint completed and
    // both backends have ledger rows, while lines are still to be sent
    try (ChildLogbench first = ChildLogbench.start(dir.resolve("logs"), "first", "generate", config.toString(),
        "--run-dir", runDir.toString(), "--quiet")) {
      first.await("a completed checkpoint and ledger rows of both backends", START,
          () -> KilledRunProbes.hasCheckpoint(RunDir.of(checkpoints))
              && KilledRunProbes.sentSoFar(RunDir.of(runDir), "opensearch") > 0
              && KilledRunProbes.sentSoFar(RunDir.of(runDir), "files") > 0);
      first.signal("KILL");
      assertThat(first.waitFor(Duration.ofSeconds(30))).isEqualTo(137);
    }
    long sentBefore = Math.min(KilledRunProbes.sentSoFar(RunDir.of(runDir), "opensearch"),
        KilledRunProbes.sentSoFar(RunDir.of(runDir), "files"));
    assertThat(sentBefore).as("killed mid-run: some lines were not sent yet").isLessThan(LINES);
    assertThat(runDir.resolve(LedgerFiles.CSV)).as("the killed run wrote no final ledger").doesNotExist();
    JsonNode killed = new ObjectMapper().readTree(runDir.resolve("run.json").toFile());
    long checkpointId = RetainedCheckpoints.latest(checkpoints).orElseThrow().id();

    // the resume: the same run id and start, from the newest checkpoint
    try (ChildLogbench resume = ChildLogbench.start(dir.resolve("logs"), "resume", "generate", config.toString(),
        "--resume", runDir.toString(), "--quiet")) {
      assertThat(resume.waitFor(START.plusMinutes(2))).as(resume.output()).isZero();
      assertThat(resume.stderr()).contains("generate: resuming run " + killed.get("runId").asText()
          + " from checkpoint " + checkpointId);
    }
    JsonNode run = new ObjectMapper().readTree(runDir.resolve("run.json").toFile());
    assertThat(run.get("runId")).isEqualTo(killed.get("runId"));
    assertThat(run.get("runStartMillis")).isEqualTo(killed.get("runStartMillis"));
    assertThat(run.at("/resumes/0/checkpointId").asLong()).isEqualTo(checkpointId);

    // the ledger counts every line once although the checkpoint's windows were counted before the kill
    List<LedgerEntry> ledger = LedgerFiles.read(runDir);
    for (String backend : List.of("opensearch", "files")) {
      List<LedgerEntry> rows = ledger.stream().filter(e -> e.backend().equals(backend)).toList();
      assertThat(rows).as(backend).hasSize(6).allSatisfy(e -> {
        assertThat(e.sent()).isEqualTo(e.expected());
        assertThat(e.acked()).isEqualTo(e.expected());
      });
    }

    // the restored sources recorded the batches from the checkpoint up to their leases
    List<RestoreRecord> restores = ReplayFiles.in(runDir).read();
    for (String backend : List.of("opensearch", "files")) {
      assertThat(restores).as(backend).filteredOn(r -> r.backend().equals(backend)
              && r.kind().equals(RestoreRecord.SOURCE))
          .isNotEmpty().allSatisfy(r -> assertThat(r.checkpointId()).isEqualTo(checkpointId));
    }

    Printed verify = Printed.run("verify", config.toString(), "--run-dir", runDir.toString(), "--quiet");
    assertThat(verify.code()).as("%s%n%s", verify.out(), verify.err()).isZero();
    List<String> verdicts = Files.readAllLines(runDir.resolve("verdicts.csv"));
    assertThat(verdicts).hasSize(1 + 12);
    assertThat(verdicts.subList(1, verdicts.size())).as(String.join("\n", verdicts))
        .allMatch(l -> l.split(",")[3].equals("OK") || l.split(",")[3].equals("REPLAYED"));
    // OpenSearch keeps one document per id (<run id>-<seq>): copies sent again overwrite theirs;
    // the files backend truncates its files to the checkpoint's lengths when it is restored
    assertThat(verdicts.subList(1, verdicts.size())).allMatch(l -> l.split(",")[3].equals("OK"));
    OpenSearchTestServer os = OpenSearchTestServer.get();
    os.request("POST", "/" + index + "/_refresh", null);
    assertThat(os.request("GET", "/" + index + "/_count", null).body()).contains("\"count\":" + LINES + ",");
    try (Stream<String> lines = Files.lines(dir.resolve("logdir").resolve("2021-05-01.log"))) {
      assertThat(lines.count()).isEqualTo(LINES);
    }
  }

  @Test
  void aRunDirectoryWithoutACheckpointOrOfAnotherRunFileIsAClearError() throws Exception {
    Path config = config("resume-it-errors");
    Path runDir = dir.resolve("run");
    Files.createDirectories(runDir);

    Printed none = Printed.run("generate", config.toString(), "--resume", runDir.toString());
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err()).startsWith("logbench: --resume " + runDir + ": " + runDir.resolve("run.json")
        + " does not exist; expected the run directory of a generate run that was stopped before its end.");

    // run.json of a run of another run file (more lines)
    Files.writeString(runDir.resolve("run.json"), String.format(Locale.ROOT, "{\"name\":\"resume-it\","
        + "\"runId\":\"resume-it-x\",\"runStartMillis\":1,\"firstIndex\":0,\"lines\":%d,\"windowMillis\":10000,"
        + "\"zone\":\"UTC\"}", LINES + 1));
    Printed other = Printed.run("generate", config.toString(), "--resume", runDir.toString());
    assertThat(other.code()).isEqualTo(2);
    assertThat(other.err()).contains("is not a run of " + config + ": lines is " + (LINES + 1)
        + " there but " + LINES + " in the run file. Resume a run with the run file it was started with.");

    // the right run, but no completed checkpoint (a chk directory Flink had not finished)
    Files.writeString(runDir.resolve("run.json"), "{\"name\":\"resume-it\",\"runId\":\"resume-it-x\","
        + "\"runStartMillis\":1,\"firstIndex\":0,\"lines\":" + LINES + ",\"windowMillis\":10000,\"zone\":\"UTC\"}");
    Files.createDirectories(runDir.resolve("checkpoints/0123/chk-3"));
    Printed unfinished = Printed.run("generate", config.toString(), "--resume", runDir.toString());
    assertThat(unfinished.code()).isEqualTo(2);
    assertThat(unfinished.err()).contains(runDir.resolve("checkpoints") + " holds no completed checkpoint (a chk-N"
        + " directory with _metadata)");
  }
}
