package io.logbench.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Quickstart's run file (config/quickstart.yaml with its servers' addresses) and its verdicts. */
class QuickstartFilesTest {

  @TempDir Path dir;

  @Test
  void theShippedRunFileIsConfigQuickstartYaml() throws Exception {
    assertThat(QuickstartFiles.template()).isEqualTo(Files.readString(Path.of("..", "config", "quickstart.yaml")));
  }

  @Test
  void theRunFileGetsTheServersAddressesAndNothingFromTheEnvironment() throws Exception {
    Path runDir = dir.resolve("run");
    Path file = QuickstartFiles.writeRunFile(runDir, QuickstartFiles.template(), Map.of(
        "OPENSEARCH_URL", "http://127.0.0.1:41001",
        "KAFKA_BOOTSTRAP", "127.0.0.1:41002",
        "LOGBENCH_RUN_DIR", runDir.toString()));
    assertThat(file).isEqualTo(runDir.resolve("quickstart.yaml"));
    // every variable is replaced, so loading it reads no environment
    String text = Files.readString(file);
    assertThat(text).doesNotContain("${").startsWith("# config/quickstart.yaml as 'logbench quickstart' ran it");
    RunConfig config = ConfigLoader.parse(text, "x", name -> {
      throw new AssertionError("the run file still asks for " + name);
    });
    assertThat(config.runDir()).isEqualTo(io.logbench.rundir.RunDir.of(runDir));
    assertThat(config.ledgerKafka().bootstrap()).isEqualTo("127.0.0.1:41002");
    assertThat(config.backends()).extracting(b -> b.name()).containsExactly("opensearch", "kafka", "files");
    assertThat(text).contains("url: http://127.0.0.1:41001").contains("bootstrap: 127.0.0.1:41002")
        .contains("index: logbench-quickstart").contains("topic: logbench-quickstart")
        .contains("dir: " + runDir + "/logdir");
  }

  @Test
  void verdictsAreCountedByBackendAndStatusWhateverTheDetailHolds() throws Exception {
    Path csv = dir.resolve("verdicts.csv");
    Files.writeString(csv, String.join("\n",
        "backend,window_start,window_end,status,expected,acked,observed,detail",
        "opensearch,2021-05-01T00:00:00-03:00,2021-05-01T00:01:00-03:00,OK,10,10,10,",
        "opensearch,2021-05-01T00:01:00-03:00,2021-05-01T00:02:00-03:00,MISSING,10,10,8,\"2 lines, ids 4,5\"",
        "kafka,2021-05-01T00:00:00-03:00,2021-05-01T00:01:00-03:00,OK,10,10,10,\"say \"\"hi\"\"\"",
        ""));
    assertThat(QuickstartFiles.verdictCounts(csv)).containsExactly(
        Map.entry("opensearch", Map.of("MISSING", 1, "OK", 1)),
        Map.entry("kafka", Map.of("OK", 1)));
    assertThat(QuickstartFiles.fields("a,\"b,c\",\"d\"\"e\",")).containsExactly("a", "b,c", "d\"e", "");

    Files.writeString(csv, "window,verdict\n");
    assertThatThrownBy(() -> QuickstartFiles.verdictCounts(csv))
        .hasMessageContaining("has no backend or status column");
  }
}
