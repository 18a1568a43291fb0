package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.report.CsvTable;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.sink.kafka.KafkaTestBroker;
import io.logbench.sink.loki.LokiEmulator;
import io.logbench.sink.victorialogs.VictoriaLogsEmulator;
import io.logbench.testing.LoopbackMiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Write-to-visible latency and footprint end to end: a short paced run by {@code generate} into a
 * real OpenSearch (its own 1 s refresh, no forced refresh by the polls), a real Kafka, files, the
 * Loki emulator and a VictoriaLogs emulator that keeps rows out of its selects for 6 s after each
 * insert. Every backend's sampled batches are found visible by real polls, the delayed emulator's
 * latencies are the largest (ordering only, no timing threshold), every backend reports a
 * positive stored size, and {@code compare} prints the table.
 */
class IngestVisibilityITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(4);

  private static final String INDEX = "ingest-visibility";
  private static final String TOPIC = "ingest-visibility";

  @TempDir Path dir;
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().visibilityDelay(Duration.ofSeconds(6));
  private final VictoriaLogsEmulator vlAtOnce = new VictoriaLogsEmulator();
  private final LokiEmulator loki = new LokiEmulator();

  @AfterEach
  void stop() {
    vl.close();
    vlAtOnce.close();
    loki.close();
  }


  @Test
  void everyBackendHasVisibilityAndFootprintFiguresAndTheDelayedOneIsSlowest() throws Exception {
    KafkaTestBroker.get().createTopic(TOPIC, 2);
    Path config = dir.resolve("visibility.yaml");
    Files.writeString(config, String.join("\n",
        "name: visibility-it",
        "dataset: {kind: app-json, lines: 6000, streams: 4, rate: 1000}",
        "schedule: {kind: constant, rate: 1500}",
        "timestamps: now",
        "batch: {lines: 100}",
        "zone: UTC",
        "run: {checkpoint_interval: 1s}",
        // one batch in 4 of the 60: 15 samples per backend; a minute for the last line at most
        "visibility: {sample: 4, poll: 100ms, timeout: 60s}",
        "backends:",
        "  - {kind: opensearch, name: opensearch, url: '" + OpenSearchTestServer.get().url() + "', index: " + INDEX + "}",
        "  - {kind: kafka, bootstrap: '" + KafkaTestBroker.get().bootstrap() + "', topic: " + TOPIC + "}",
        "  - {kind: files, dir: '" + dir.resolve("files") + "'}",
        "  - {kind: victorialogs, url: '" + vl.url() + "', timeout: 60s}",
        "  - {kind: victorialogs, name: vl-at-once, url: '" + vlAtOnce.url() + "', timeout: 60s}",
        "  - {kind: loki, url: '" + loki.url() + "', timeout: 60s}",
        // sampling off for one backend of its own: skipped, and said so
        "  - {kind: discard, name: nothing, visibility: {sample: 0}}",
        ""));
    Path runDir = dir.resolve("run");

    Printed gen = Printed.run("generate", config.toString(), "--run-dir", runDir.toString());
    assertThat(gen.code()).as("%s%n%s", gen.out(), gen.err()).isZero();
    assertThat(gen.out()).contains("visible ms from ack", "note: backend nothing: the discard backend reports no"
        + " stored size; visibility not polled: visibility sampling is off (visibility.sample: 0).");

    CsvTable ingest = CsvTable.read(runDir.resolve("ingest.csv"));
    assertThat(ingest.distinct("backend")).containsExactly("opensearch", "kafka", "files", "victorialogs",
        "vl-at-once", "loki", "nothing");
    for (String b : POLLED) {
      List<String> row = ingest.where("backend", b).get(0);
      String why = gen.out() + "\n" + row;
      assertThat(ingest.get(row, "acked_lines")).as(why).isEqualTo("6000");
      // 60 batches, numbers 0..59: 0, 4, ..., 56 are sampled, and every one was seen by a poll
      assertThat(ingest.number(row, "sampled")).as(why).isEqualTo(15.0);
      assertThat(ingest.number(row, "visible")).as(why).isEqualTo(15.0);
      assertThat(ingest.number(row, "not_visible")).as(why).isEqualTo(0.0);
      assertThat(ingest.number(row, "visible_from_ack_p50_ms")).as(why).isNotNull();
      assertThat(ingest.number(row, "visible_from_ack_p95_ms")).as(why)
          .isGreaterThanOrEqualTo(ingest.number(row, "visible_from_ack_p50_ms"));
      // the scheduled time comes before the answer: from schedule is never less than from the answer
      assertThat(ingest.number(row, "visible_from_schedule_max_ms")).as(why)
          .isGreaterThanOrEqualTo(ingest.number(row, "visible_from_ack_max_ms"));
      // the end-of-run count came after the last answer
      assertThat(ingest.number(row, "ingest_s")).as(why).isGreaterThanOrEqualTo(ingest.number(row, "ack_s"));
      assertThat(ingest.number(row, "lines_per_s")).as(why).isPositive();
      assertThat(ingest.number(row, "stored_bytes")).as(why).isPositive();
      assertThat(ingest.number(row, "bytes_per_line")).as(why).isPositive();
      assertThat(ingest.number(row, "raw_bytes_per_line")).as(why).isPositive();
      assertThat(ingest.get(row, "stored_source")).as(why).isNotEmpty();
    }
    // the files hold exactly the lines: their size is the raw size, newline included
    List<String> files = ingest.where("backend", "files").get(0);
    assertThat(ingest.number(files, "bytes_per_line")).isEqualTo(ingest.number(files, "raw_bytes_per_line"));
    // the emulator that hides rows for 6 s is seen later than the same emulator without the delay
    // and the Loki emulator, read the same way (the readers of Kafka and files scan, so their polls
    // cost more and are no yardstick)
    for (String b : List.of("vl-at-once", "loki")) {
      assertThat(p50(ingest, "victorialogs")).as("victorialogs (6 s delay) against %s: %s", b, gen.out())
          .isGreaterThan(p50(ingest, b));
    }
    List<String> nothing = ingest.where("backend", "nothing").get(0);
    assertThat(ingest.get(nothing, "sampled")).isEmpty();
    assertThat(ingest.get(nothing, "ingest_s")).isEmpty();

    Printed verify = Printed.run("verify", config.toString(), "--run-dir", runDir.toString());
    assertThat(verify.code()).as("%s%n%s", verify.out(), verify.err()).isZero();
    Printed compare = Printed.run("compare", runDir.toString());
    assertThat(compare.code()).as(compare.err()).isZero();
    assertThat(compare.out()).contains("run visibility-it", "backend", "ingest", "B/line", "visible p50/p95 ms",
        "ELK (seed 004, by hand)", "10 h 00 min", "Loki (seed 004, by hand)", "verdict: opensearch: OK ",
        "note: No search timings: queries.csv is absent; run logbench query");
    for (String b : POLLED) {
      assertThat(compare.out()).containsPattern("(?m)^" + b + " +[a-z]+ +([0-9.]+ s|[0-9]+ min [0-9]+ s) +[0-9,]+"
          + " +[0-9.]+ [kMG]?B +[0-9.]+ +[0-9.]+ +[0-9.]+/[0-9.]+ +0 +0 +-$");  // answers: "-" until query has run
    }
    assertThat(Files.readString(runDir.resolve("report.html"))).contains("Comparison (seed 004");
  }

  private static final List<String> POLLED =
      List.of("opensearch", "kafka", "files", "victorialogs", "vl-at-once", "loki");

  private static double p50(CsvTable t, String backend) {
    return t.number(t.where("backend", backend).get(0), "visible_from_ack_p50_ms");
  }
}
