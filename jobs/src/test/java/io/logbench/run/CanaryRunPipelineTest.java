package io.logbench.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.canary.CanarySettings;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.replay.ReplayFiles;
import io.logbench.sink.BackendConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A canary of a pipeline: two count blocks behind one file write. The write is the one delivery
 * (its source's leases and restore records go by the write's name), so a start after a while
 * down finds the gap from the write's leases, and each count block reads the write's records.
 */
class CanaryRunPipelineTest {

  @TempDir Path dir;

  private Path config() throws Exception {
    Path f = dir.resolve("canary.yaml");
    Files.writeString(f, String.join("\n",
        "name: tail-canary",
        "dataset: {kind: app-json, streams: 2}",
        "schedule: {kind: constant, rate: 10}",
        "window: 2s",
        "batch: {lines: 5}",
        "parallelism: 1",
        "canary: {}",
        "writes:",
        "  - {name: app, kind: file, path: '" + dir.resolve("app").resolve("app.log")
            + "', rotate: {size: 4KB, keep: 1}}",
        "backends:",
        "  - {kind: victorialogs, name: vl, url: 'http://127.0.0.1:9', write: app}",
        "  - {kind: loki, name: loki, url: 'http://127.0.0.1:9', labels: {job: fb}, write: app}",
        ""));
    return f;
  }

  @Test
  void countBlocksBehindAWriteAreDeliveredAsTheWrite() throws Exception {
    RunConfig config = ConfigLoader.load(config());
    List<String> delivered = new ArrayList<>();
    for (BackendConfig b : config.backends()) {
      delivered.add(b.name() + "->" + b.spec().deliveredAs());
    }
    assertThat(delivered).containsExactly("vl->app", "loki->app");
  }

  @Test
  void aStartAfterAWhileDownTakesItsGapFromTheWritesLeases() throws Exception {
    Path file = config();
    RunConfig config = ConfigLoader.load(file);
    Path runDir = dir.resolve("run");
    try (CanaryRun first = CanaryRun.prepare(file, config, CanarySettings.defaults(), runDir.toString(),
        Duration.ZERO)) {
      first.start(note -> { });
    }
    // what the first life's source had sent: batches 0..3 (lines 0..19) of the write
    try (ReplayFiles.Lease lease = ReplayFiles.in(runDir).lease("app", 0)) {
      lease.write(3);
    }
    try (CanaryRun second = CanaryRun.prepare(file, config, CanarySettings.defaults(), runDir.toString(),
        Duration.ofSeconds(30))) {
      assertThat(second.continuesRun()).isTrue();
      assertThat(second.newGap()).isNotNull();
      assertThat(second.newGap().fromIndex()).as("past the write's last leased batch").isEqualTo(20);
      assertThat(second.newGap().toIndex()).isGreaterThan(250);
    }
  }
}
