package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.sink.kafka.KafkaTestBroker;
import io.logbench.testing.ChildLogbench;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to a local {@code generate} (a child JVM) mid-run: the job stops cleanly (no new
 * batches, every batch made answered), the ledger is final with a row for every window, the
 * summary is printed and written, the exit code is 143; verify reports the windows never sent as
 * "not sent", no loss, and exits 0; and, from the ledger generate also wrote to Kafka
 * ({@code run.ledger_kafka}), verify in a directory of its own gives the same verdicts.
 */
class GenerateStopITCase {

  private static final int LINES = 2_400;

  @TempDir Path dir;

  private static long sent(Path runDir) {
    try {
      return LedgerFiles.readLive(runDir.resolve("ledger").resolve("files")).stream()
          .mapToLong(LedgerEntry::sent).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void sigtermStopsCleanlyWritesTheLedgerAndSummaryAndExits143() throws Exception {
    Path config = dir.resolve("run.yaml");
    Files.writeString(config, KilledRunProbes.head("stop-it", LINES) + String.join("\n",
        "run: {checkpoint_interval: 500ms, ledger_kafka: {bootstrap: '" + KafkaTestBroker.get().bootstrap()
            + "', topic: generate-stop-it-ledger}}",
        "backends:",
        "  - {kind: files, name: files, dir: '" + dir.resolve("logdir") + "'}",
        ""));
    Path runDir = dir.resolve("run");
    int code;
    String out;
    String err;
    try (ChildLogbench generate = ChildLogbench.start(dir.resolve("logs"), "generate", "generate",
        config.toString(), "--run-dir", runDir.toString(), "--quiet")) {
      generate.await("the first ledger rows", Duration.ofMinutes(3), () -> sent(runDir) > 0);
      generate.signal("TERM");
      code = generate.waitFor(Duration.ofMinutes(2));
      out = generate.stdout();
      err = generate.stderr();
    }
    assertThat(code).as("%s%n%s", out, err).isEqualTo(143);
    assertThat(err).contains("generate: SIGTERM: stopping cleanly")
        .contains("generate: stopped cleanly by SIGTERM before the run's end (every batch made was answered)");
    assertThat(out).contains("ledger (" + runDir.resolve("ledger.csv") + "):");

    // the ledger is final: a row for each of the 6 windows, what was sent acknowledged
    List<LedgerEntry> ledger = LedgerFiles.read(runDir);
    assertThat(ledger).hasSize(6).allSatisfy(e -> assertThat(e.acked()).isEqualTo(e.sent()));
    long sent = ledger.stream().mapToLong(LedgerEntry::sent).sum();
    assertThat(sent).as("stopped mid-run").isPositive().isLessThan(LINES);
    // the summary's totals are the ledger's: a drained job's outcomes all reached the client
    assertThat(Files.readAllLines(runDir.resolve("summary.csv")).get(1))
        .startsWith("files,at-least-once," + LINES + "," + sent + "," + sent + ",");
    JsonNode run = new ObjectMapper().readTree(runDir.resolve("run.json").toFile());
    assertThat(run.at("/stopped/signal").asText()).isEqualTo("SIGTERM");
    assertThat(run.at("/stopped/ending").asText()).isEqualTo("stopped");
    try (Stream<String> lines = Files.lines(dir.resolve("logdir").resolve("2021-05-01.log"))) {
      assertThat(lines.count()).isEqualTo(sent);
    }

    Printed verify = Printed.run("verify", config.toString(), "--run-dir",
        runDir.toString(), "--quiet");
    assertThat(verify.code()).as("%s%n%s", verify.out(), verify.err()).isZero();
    assertThat(verify.out()).contains("note: generate was stopped by SIGTERM at ");
    List<String> verdicts = Files.readAllLines(runDir.resolve("verdicts.csv"));
    assertThat(verdicts).hasSize(1 + 6);
    for (String line : verdicts.subList(1, verdicts.size())) {
      String[] f = line.split(",", 8);
      long unsent = Long.parseLong(f[4]) - Long.parseLong(f[5]);
      if (unsent == 0) {
        assertThat(f[3]).as(line).isEqualTo("OK");
      } else {
        assertThat(f[3]).as(line).isEqualTo("REJECTED");
        assertThat(f[7]).as(line).contains("not sent=" + unsent);
      }
    }
    assertThat(verdicts).anyMatch(l -> l.contains(",REJECTED,"));

    // the stopped run's final ledger and run.json reached Kafka too (generate wrote them after the
    // drained job): verify from a directory that never saw the run gives the same verdicts
    Path fresh = dir.resolve("fresh");
    Printed viaKafka = Printed.run("verify", config.toString(), "--run-dir", fresh.toString(), "--run-id",
        run.get("runId").asText(), "--quiet");
    assertThat(viaKafka.code()).as("%s%n%s", viaKafka.out(), viaKafka.err()).isZero();
    assertThat(viaKafka.out()).contains("note: generate was stopped by SIGTERM at ");
    assertThat(Files.readAllLines(fresh.resolve("verdicts.csv"))).isEqualTo(verdicts);
  }
}
