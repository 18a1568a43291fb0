package io.logbench.cli;

import io.logbench.testing.LoopbackMiniCluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.job.FlinkEnvironments;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code generate} end to end on a MiniCluster with the discard backend and a short ladder. */
class GenerateCommandITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      LoopbackMiniCluster.extension(4);

  @TempDir Path dir;

  @Test
  void ladderToTwoDiscardBackendsWritesStepsAndExitsZero() throws Exception {
    Path config = dir.resolve("ladder.yaml");
    Files.writeString(config, String.join("\n",
        "dataset: {kind: app-json}",
        "schedule: {kind: ladder, steps: [200, 400], ramp: 1s, hold: 2s}",
        "batch: {lines: 50}",
        "parallelism: 2",
        "run: {checkpoint_interval: 1s}",
        "backends:",
        "  - {kind: discard, name: a}",
        "  - {kind: discard, name: b, delivery: load-test}",
        ""));
    Path runDir = dir.resolve("run");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"generate", config.toString(), "--run-dir", runDir.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(printed).contains("backend", "p95 ms", "target/s", "achieved/s");

    List<String> summary = Files.readAllLines(runDir.resolve("summary.csv"));
    assertThat(summary).hasSize(3);
    // 200/s ramped over 1 s and held 2 s, then 300/s average ramp and 400/s held: 1,600 lines
    assertThat(summary.get(1)).startsWith("a,at-least-once,1600,1600,1600,32,");
    assertThat(summary.get(2)).startsWith("b,load-test,1600,1600,1600,32,");

    List<String> steps = Files.readAllLines(runDir.resolve("steps.csv"));
    assertThat(steps.get(0)).isEqualTo(
        "backend,step,target_rate,achieved_rate,acked_in_hold,hold_seconds,batches,p50_ms,p95_ms,p99_ms,max_ms,failures");
    assertThat(steps).hasSize(5);
    // every line due in a hold was acked: 400 lines in step 0's 2 s hold, 800 in step 1's
    assertThat(steps.get(1)).startsWith("a,0,200,200.0,400,2.000,");
    assertThat(steps.get(2)).startsWith("a,1,400,400.0,800,2.000,");
    assertThat(steps.get(3)).startsWith("b,0,200,200.0,400,2.000,");
    assertThat(steps.get(1)).endsWith(",");
  }

  @Test
  void aRunFileWithoutBackendsIsAConfigError() throws Exception {
    Path config = dir.resolve("none.yaml");
    Files.writeString(config, "dataset: {kind: app-json, lines: 10}\nschedule: {kind: constant, rate: 10}\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"generate", config.toString()}, new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("logbench: " + config
        + ": backends: missing; expected a list of backend blocks, such as [{kind: discard}], for generate to send to.\n");
  }
}
