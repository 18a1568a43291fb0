package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.ledger.LedgerKafka;
import io.logbench.plan.ConfigLoader;
import io.logbench.sink.kafka.KafkaTestBroker;
import io.logbench.testing.LoopbackMiniCluster;
import io.logbench.verify.LedgerView;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verify --ledger-kafka}: a real {@code generate} (MiniCluster) of two minutes of app-json
 * lines to the files backend with {@code run.ledger_kafka} on the real in-JVM Kafka, then verify
 * from directories that never saw the run: every window OK; with three lines deleted from the day
 * file, the window that lost them is MISSING 3. The ledger records carry the run id (not the run
 * name), generate's client takes a backend's rows from Kafka when its tasks' files are not on its
 * machine, and a run id not in the topic, a topic that does not exist and a run whose generate has
 * not ended are refused with exit 2 and say so.
 */
class VerifyLedgerKafkaITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(2);

  private static final String TOPIC = "verify-ledger-kafka-it";

  @TempDir Path dir;

  @Test
  void verifiesFromKafkaAloneAndShowsLinesLostFromTheBackend() throws Exception {
    String bootstrap = KafkaTestBroker.get().bootstrap();
    Path logdir = dir.resolve("logdir");
    Path config = dir.resolve("run.yaml");
    Files.writeString(config, String.join("\n",
        "name: ledger-kafka-it",
        "dataset: {kind: app-json, lines: 12000, streams: 5, start: \"2021-05-01T03:00:00Z\", rate: 100}",
        "schedule: {kind: max}",
        "timestamps: original",
        "batch: {lines: 500}",
        "window: 1m",
        "zone: UTC",
        "parallelism: 1",
        "run: {checkpoint_interval: 1s, ledger_kafka: {bootstrap: '" + bootstrap + "', topic: " + TOPIC + "}}",
        "backends:",
        "  - {kind: files, dir: '" + logdir + "'}",
        ""));
    Path generated = dir.resolve("generated");
    Printed gen = Printed.run("generate", config.toString(), "--run-dir", generated.toString(), "--quiet");
    assertThat(gen.code()).as("%s%n%s", gen.out(), gen.err()).isZero();
    String runId = new ObjectMapper().readTree(generated.resolve("run.json").toFile()).get("runId").asText();

    // the topic holds the run's final ledger under its run id, as the run directory does
    LedgerKafka kafka = new LedgerKafka(bootstrap, TOPIC);
    LedgerKafka.Run fromKafka = kafka.read(runId);
    List<LedgerEntry> fromFiles = LedgerFiles.read(generated);
    assertThat(fromFiles).hasSize(2);
    assertThat(fromKafka.rows()).containsExactlyElementsOf(fromFiles);
    assertThat(kafka.runIds()).contains(runId);
    // what the verify job's tasks read: the run's final rows, per backend
    LedgerView.Snapshot seen = LedgerView.kafka(kafka, runId).read("files");
    assertThat(seen.isFinal()).isTrue();
    assertThat(seen.rows().values()).containsExactlyInAnyOrderElementsOf(fromFiles);
    assertThat(LedgerView.kafka(kafka, runId).read("other").rows()).isEmpty();
    // generate's client, when the tasks' ledger files are not on its machine, takes the rows from Kafka
    List<String> warned = new java.util.ArrayList<>();
    List<LedgerEntry> elsewhere = io.logbench.run.GenerateRun.finalLedger(ConfigLoader.load(config),
        dir.resolve("elsewhere"), runId, warned::add);
    assertThat(elsewhere).containsExactlyElementsOf(fromFiles);
    assertThat(String.join("\n", warned)).contains("backend files's ledger is not in "
        + dir.resolve("elsewhere").resolve("ledger").resolve("files") + " (its tasks ran elsewhere); took its 2"
        + " row(s) from topic " + TOPIC + " instead.");

    // a directory that never saw the run: run.json and the ledger come from Kafka
    Path fresh = dir.resolve("fresh");
    Printed ok = Printed.run("verify", config.toString(), "--run-dir", fresh.toString(),
        "--ledger-kafka", bootstrap + "/" + TOPIC, "--run-id", runId);
    assertThat(ok.code()).as("%s%n%s", ok.out(), ok.err()).isZero();
    assertThat(ok.err()).contains("verify: run " + runId + ": run.json and 2 ledger row(s) from topic " + TOPIC);
    assertThat(Files.readAllLines(fresh.resolve("verdicts.csv"))).containsExactly(
        "backend,window_start,window_end,status,expected,acked,observed,detail",
        "files,2021-05-01T03:00:00Z,2021-05-01T03:01:00Z,OK,6000,6000,6000,",
        "files,2021-05-01T03:01:00Z,2021-05-01T03:02:00Z,OK,6000,6000,6000,");
    assertThat(new ObjectMapper().readTree(fresh.resolve("run.json").toFile()).get("runId").asText())
        .isEqualTo(runId);
    assertThat(fresh.resolve("ledger")).doesNotExist();

    // three lines of the second minute lost from the backend: MISSING 3 there
    Path day = logdir.resolve("2021-05-01.log");
    List<String> lines = new ArrayList<>(Files.readAllLines(day, StandardCharsets.UTF_8));
    assertThat(lines).hasSize(12_000);
    lines.subList(7000, 7003).clear();
    Files.write(day, lines, StandardCharsets.UTF_8);
    Path second = dir.resolve("second");
    // --run-id alone: the run file's run.ledger_kafka
    Printed lost = Printed.run("verify", config.toString(), "--run-dir", second.toString(), "--run-id", runId);
    assertThat(lost.code()).as("%s%n%s", lost.out(), lost.err()).isEqualTo(1);
    assertThat(lost.err()).contains("verify: backend files is missing 3 acknowledged line(s) in 1 window(s)");
    assertThat(Files.readAllLines(second.resolve("verdicts.csv"))).containsExactly(
        "backend,window_start,window_end,status,expected,acked,observed,detail",
        "files,2021-05-01T03:00:00Z,2021-05-01T03:01:00Z,OK,6000,6000,6000,",
        "files,2021-05-01T03:01:00Z,2021-05-01T03:02:00Z,MISSING,6000,6000,5997,3 acknowledged line(s) not found");

    // refusals, each exit 2 with what is wrong
    Printed unknown = Printed.run("verify", config.toString(), "--run-dir", dir.resolve("u").toString(), "--run-id",
        "ledger-kafka-it-20000101-000000-0000");
    assertThat(unknown.code()).as("%s%n%s", unknown.out(), unknown.err()).isEqualTo(2);
    assertThat(unknown.err()).contains("Topic " + TOPIC + ".runs at " + bootstrap
        + " holds no run ledger-kafka-it-20000101-000000-0000; its newest runs are ").contains(runId);

    Printed noTopic = Printed.run("verify", config.toString(), "--run-dir", dir.resolve("t").toString(),
        "--ledger-kafka", bootstrap + "/no-such-ledger", "--run-id", runId);
    assertThat(noTopic.code()).as("%s%n%s", noTopic.out(), noTopic.err()).isEqualTo(2);
    assertThat(noTopic.err()).contains("Kafka at " + bootstrap + " has no topic no-such-ledger.runs");

    Printed noId = Printed.run("verify", config.toString(), "--run-dir", dir.resolve("n").toString(),
        "--ledger-kafka", bootstrap + "/" + TOPIC);
    assertThat(noId.code()).as("%s%n%s", noId.out(), noId.err()).isEqualTo(2);
    assertThat(noId.err()).contains("verify: --run-id is missing").contains(runId);

    // a run generate has started and not ended: run.json as generate writes it before its job
    ObjectNode started = (ObjectNode) new ObjectMapper().readTree(generated.resolve("run.json").toFile());
    String liveId = runId.substring(0, runId.length() - 4) + "beef";
    started.put("runId", liveId);
    started.remove("finishedMillis");
    kafka.writeRun(liveId, new ObjectMapper().writeValueAsBytes(started));
    Printed live = Printed.run("verify", config.toString(), "--run-dir", dir.resolve("live").toString(),
        "--run-id", liveId);
    assertThat(live.code()).as("%s%n%s", live.out(), live.err()).isEqualTo(2);
    assertThat(live.err()).contains("The ledger of run " + liveId + " in topic " + TOPIC + " at " + bootstrap
        + " is not complete: its run.json (topic " + TOPIC + ".runs) has no finishedMillis, so generate is still"
        + " running, or it crashed or was killed before its end");

    // the run directory of another run is not overwritten
    Printed other = Printed.run("verify", config.toString(), "--run-dir", generated.toString(), "--run-id", liveId);
    assertThat(other.code()).as("%s%n%s", other.out(), other.err()).isEqualTo(2);
    assertThat(other.err()).contains("run.json is run " + runId + "'s, not run " + liveId + "'s");
  }
}
