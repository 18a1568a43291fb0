package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code report}'s command line: where the page goes, and the errors of a wrong one. */
class ReportCommandTest {

  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void writesReportHtmlIntoTheRunDirectoryOrWhereOutSays() throws Exception {
    Path run = Files.createDirectories(dir.resolve("run"));
    Files.writeString(run.resolve("summary.csv"), "backend,mode,acked,p50_ms\ndevnull,at-least-once,10,1.5\n");
    assertThat(run("report", run.toString())).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("wrote " + run.resolve("report.html") + " (");
    assertThat(Files.readString(run.resolve("report.html"))).startsWith("<!DOCTYPE html>").contains("devnull");

    Path page = dir.resolve("elsewhere/page.html");
    assertThat(run("report", run.toString(), "--out", page.toString(), "--compare", run.toString())).isZero();
    assertThat(Files.readString(page)).contains("logbench compare: run vs run");
  }

  @Test
  void aRunDirectoryThatIsNotThereIsAUsageError() {
    assertThat(run("report", dir.resolve("nope").toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("logbench: report: RUN_DIR " + dir.resolve("nope")
        + " is not a directory; expected a run directory (the --run-dir of generate, or run.dir of the run file).");
  }

  @Test
  void aMissingRunFileOrComparedDirectoryIsAUsageError() {
    assertThat(run("report", dir.toString(), "--config", dir.resolve("run.yaml").toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("logbench: report: --config " + dir.resolve("run.yaml")
        + " is not a file; expected the run file of the run.");
    err.reset();
    assertThat(run("report", dir.toString(), "--compare", dir.resolve("other").toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("logbench: report: --compare " + dir.resolve("other")
        + " is not a directory;");
  }
}
