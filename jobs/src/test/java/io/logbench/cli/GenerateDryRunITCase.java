package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.cli.PlanCommandTest.Run;
import io.logbench.sink.kafka.KafkaTestBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code generate --dry-run} with a backend that is not ready: a Kafka topic that does not exist on
 * the in-JVM broker is named with what to do, the exit code is 1, and nothing is written.
 */
class GenerateDryRunITCase {

  @TempDir Path dir;

  @Test
  void aMissingKafkaTopicIsNotReadyAndExitsOne() throws Exception {
    String bootstrap = KafkaTestBroker.get().bootstrap();
    Path runDir = dir.resolve("run");
    Path config = dir.resolve("dry.yaml");
    Files.writeString(config, "dataset:\n  kind: nginx-month\n  from: \"2021-05-01T00:00:00-03:00\"\n"
        + "  until: \"2021-05-01T00:10:00-03:00\"\n"
        + "run:\n  dir: " + runDir + "\n"
        + "backends:\n"
        + "  - kind: files\n    dir: " + dir.resolve("files") + "\n"
        + "  - kind: kafka\n    bootstrap: " + bootstrap + "\n    topic: dry-run-missing\n");
    Run r = PlanCommandTest.run("generate", config.toString(), "--dry-run");

    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.out())
        .containsPattern("(?m)^  files +files, at-least-once: ready$")
        .contains("  kafka          kafka, at-least-once: not ready: Kafka topic dry-run-missing does not exist at "
            + bootstrap)
        .endsWith("1 backend(s) not ready\n");
    assertThat(runDir).doesNotExist();
  }
}
