package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.job.RetainedCheckpoints;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.replay.ReplayFiles;
import io.logbench.replay.RestoreRecord;
import io.logbench.rundir.ObjectStoreEmulator;
import io.logbench.rundir.RunDir;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.testing.ChildLogbench;
import io.logbench.verify.VerifyOutputs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code generate --resume} of a run whose run directory (and so its checkpoints) is an {@code
 * objstore://} URI of the test's {@link ObjectStoreEmulator} (an emulator of object-store
 * semantics, not a real S3): a child JVM killed mid-run ({@code kill -9}) leaves its run.json,
 * ledger segments, leases and retained checkpoint in the store; a second child resumes from that
 * checkpoint, and verify from the URI finds every window OK or REPLAYED against the VictoriaLogs
 * emulator. The children find the emulator on their class path (the test classes), and its
 * objects in the same local folder as this JVM.
 */
class RunDirObjectStoreResumeITCase {

  private static final int LINES = 2_400;
  private static final Duration START = Duration.ofMinutes(3);

  @TempDir Path dir;

  private final String bucket = "rundir-resume-" + UUID.randomUUID().toString().substring(0, 8);
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().retention(Duration.ofDays(36_500));

  @AfterEach
  void cleanUp() throws Exception {
    vl.close();
    ObjectStoreEmulator.dropBucket(bucket);
  }

  @Test
  void aRunKilledMidRunResumesFromItsCheckpointInTheObjectStore() throws Exception {
    String uri = ObjectStoreEmulator.SCHEME + "://" + bucket + "/runs/resumed";
    RunDir run = RunDir.of(uri);
    RunDir checkpoints = run.resolve("checkpoints");
    Path config = dir.resolve("run.yaml");
    Files.writeString(config, KilledRunProbes.head("rundir-resume-it", LINES) + String.join("\n",
        "run: {checkpoint_interval: 500ms}",
        "backends:",
        "  - {kind: victorialogs, name: vl, url: '" + vl.url() + "', retention: 36500d, timeout: 60s}",
        ""));
    List<Path> testClasses = List.of(Path.of(System.getProperty("user.dir"), "target", "test-classes"));
    Path logs = dir.resolve("logs");
    int refusedBefore = ObjectStoreEmulator.refusals().size();

    try (ChildLogbench first = ChildLogbench.start(logs, "first", testClasses, "generate", config.toString(),
        "--run-dir", uri, "--quiet")) {
      first.await("a completed checkpoint in the store and ledger rows", START,
          () -> KilledRunProbes.hasCheckpoint(checkpoints) && KilledRunProbes.sentSoFar(run, "vl") > 0);
      first.signal("KILL");
      assertThat(first.waitFor(Duration.ofSeconds(30))).isEqualTo(137);
    }
    assertThat(KilledRunProbes.sentSoFar(run, "vl")).as("killed mid-run").isLessThan(LINES);
    assertThat(run.exists(LedgerFiles.CSV)).as("the killed run wrote no final ledger").isFalse();
    assertThat(run.resolve("ledger/vl").exists(LedgerFiles.JSONL)).isFalse();
    JsonNode killed = new ObjectMapper().readTree(run.read("run.json"));
    long checkpointId = RetainedCheckpoints.latest(checkpoints).orElseThrow().id();

    try (ChildLogbench resume = ChildLogbench.start(logs, "resume", testClasses, "generate", config.toString(),
        "--resume", uri, "--quiet")) {
      assertThat(resume.waitFor(START.plusMinutes(2))).as(resume.output()).isZero();
      assertThat(resume.stderr()).contains("generate: resuming run " + killed.get("runId").asText()
          + " from checkpoint " + checkpointId, "recorded in " + uri + "/restores");
    }
    JsonNode resumed = new ObjectMapper().readTree(run.read("run.json"));
    assertThat(resumed.get("runId")).isEqualTo(killed.get("runId"));
    assertThat(resumed.at("/resumes/0/checkpointId").asLong()).isEqualTo(checkpointId);
    assertThat(resumed.at("/resumes/0/checkpoint").asText()).startsWith(uri + "/checkpoints/");

    // the ledger counts every line once: segments the killed job wrote after the checkpoint are gone
    List<LedgerEntry> ledger = LedgerFiles.read(run);
    assertThat(ledger).hasSize(6).allSatisfy(e -> {
      assertThat(e.sent()).isEqualTo(e.expected());
      assertThat(e.acked()).isEqualTo(e.expected());
    });
    List<RestoreRecord> restores = ReplayFiles.in(run).read();
    assertThat(restores).filteredOn(r -> r.kind().equals(RestoreRecord.SOURCE)).isNotEmpty()
        .allSatisfy(r -> assertThat(r.checkpointId()).isEqualTo(checkpointId));

    Printed verify = Printed.run("verify", config.toString(), "--run-dir", uri, "--quiet");
    assertThat(verify.code()).as("%s%n%s", verify.out(), verify.err()).isZero();
    List<String> verdicts = run.readString(VerifyOutputs.VERDICTS).lines().toList();
    assertThat(verdicts).hasSize(1 + 6);
    assertThat(verdicts.subList(1, verdicts.size()))
        .allSatisfy(v -> assertThat(v.split(",")[3]).isIn("OK", "REPLAYED"));
    List<String> refusals = ObjectStoreEmulator.refusals();
    assertThat(refusals.subList(refusedBefore, refusals.size())).as("refusals in this JVM").isEmpty();
  }
}
