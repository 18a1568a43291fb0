package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command: {@code quickstart} starts a real Kafka and a real OpenSearch as
 * child JVMs (from the built servers/target/logbench-servers.jar), runs generate and verify on the
 * quickstart hour to OpenSearch, Kafka and files, finds every window OK, and leaves nothing
 * running.
 */
class QuickstartCommandITCase {

  @TempDir Path dir;

  @Test
  void quickstartRunsTheWholeLoopToAnAllOkVerdictAndStopsItsServers() throws Exception {
    Path runDir = dir.resolve("run");
    // servers other tests of this JVM share (real Loki, VictoriaLogs) are children too, and stay
    java.util.Set<Long> before = ProcessHandle.current().children().map(ProcessHandle::pid)
        .collect(java.util.stream.Collectors.toSet());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"quickstart", "--run-dir", runDir.toString(), "--quiet"},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as("exit code; stdout:%n%s%nstderr:%n%s", printed, err).isZero();

    // the verdict table: 60 windows of one minute per backend, all OK
    for (String backend : List.of("opensearch", "kafka", "files")) {
      assertThat(printed).containsPattern("(?m)^" + backend + " +60 +60 +0 +0 +0 +0$");
    }
    assertThat(printed).contains("verdict: OK: all 180 windows of 3 backends hold every line that was sent, once.")
        .contains("servers stopped");
    List<String> verdicts = Files.readAllLines(runDir.resolve("verdicts.csv"));
    assertThat(verdicts).hasSize(1 + 180);
    assertThat(verdicts.subList(1, verdicts.size())).allMatch(l -> l.split(",")[3].equals("OK"));
    // the report verify refreshed, with the verdicts of the run, and where it is printed
    Path report = runDir.resolve("report.html");
    assertThat(report).exists();
    assertThat(printed).contains("report: " + report);
    assertThat(Files.readString(report)).contains("quickstart", "opensearch", "kafka", "files");

    // the run file points at the servers quickstart started, on loopback
    String runFile = Files.readString(runDir.resolve("quickstart.yaml"));
    assertThat(runFile).containsPattern("url: http://127\\.0\\.0\\.1:\\d+").containsPattern("bootstrap: 127\\.0\\.0\\.1:\\d+");
    assertThat(runDir.resolve("logdir").resolve("2021-05-01.log")).hasSize(57_117_576);

    // both servers stopped on their own (SIGTERM), and no child process quickstart started is left
    assertThat(Files.readString(runDir.resolve("servers/kafka.log"))).contains("logbench-server stopped kafka");
    assertThat(Files.readString(runDir.resolve("servers/opensearch.log")))
        .contains("logbench-server stopped opensearch");
    assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive)
        .filter(p -> !before.contains(p.pid())).toList()).isEmpty();
  }
}
