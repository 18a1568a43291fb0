package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code query}'s command line: wrong options and run files are exit 2 with a sentence. */
class QueryCommandTest {

  @TempDir Path dir;

  private String[] run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new String[] {String.valueOf(code), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
  }

  @Test
  void aRepeatBelowOneAndADatasetWithoutLabelsToCountByAreRefused() throws Exception {
    String[] r = run("query", "../config/quickstart.yaml", "--repeat", "0");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[2]).contains("query: --repeat 0 is not valid; expected 1 or more.");

    Path config = dir.resolve("run.yaml");
    Files.writeString(config, String.join("\n",
        "name: discard-only",
        "dataset: {kind: app-json, lines: 1000, streams: 3, start: \"2021-05-01T03:00:00Z\", rate: 10}",
        "schedule: {kind: max}",
        "timestamps: original",
        "run: {dir: '" + dir.resolve("run") + "'}",
        "backends:",
        "  - {kind: discard}",
        ""));
    r = run("query", config.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("2");
    assertThat(r[2]).contains("backends: no backend of the run file keeps its lines; expected at least one backend"
        + " that is not discard.");
  }
}
