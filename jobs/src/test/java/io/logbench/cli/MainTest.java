package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The command line's help, version and exit codes, without running any job. */
class MainTest {

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void everyCommandHasHelpThatExitsZero() {
    for (String command : new String[] {"quickstart", "plan", "dataset", "publish", "generate", "verify", "report", "compare"}) {
      Run r = run(command, "--help");
      assertThat(r.code()).as(command).isZero();
      assertThat(r.out()).as(command).startsWith("Usage: logbench " + command + " ")
          .contains(switch (command) {
            case "report", "compare" -> "RUN_DIR";
            case "quickstart" -> "--keep"; // it takes no run file
            default -> "CONFIG";
          }, "--help");
      assertThat(r.err()).as(command).isEmpty();
      Run viaHelp = run("help", command);
      assertThat(viaHelp.code()).as(command).isZero();
      assertThat(viaHelp.out()).as(command).isEqualTo(r.out());
    }
    Run top = run("--help");
    assertThat(top.code()).isZero();
    assertThat(top.out()).contains("quickstart", "plan", "dataset", "publish", "generate", "verify", "report", "compare", "Exit codes: 0 done; 1");
  }

  @Test
  void versionNamesLogbenchAndFlink() {
    Run r = run("--version");
    assertThat(r.code()).isZero();
    assertThat(r.out()).startsWith("logbench ").contains("Apache Flink 2.").doesNotContain("unknown");
  }

  @Test
  void onItsOwnTheCommandLineIsNotInsideACluster() {
    // so main exits with the command's code, and jobs run on a loopback MiniCluster
    assertThat(io.logbench.job.FlinkEnvironments.insideCluster()).isFalse();
  }

  @Test
  void noCommandIsAUsageError() {
    Run r = run();
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("Usage: logbench");
  }

  @Test
  void zeroRecheckIsRefusedBeforeAnythingRuns() {
    Run r = run("verify", "../config/quickstart.yaml", "--recheck", "0s");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("logbench: verify: --recheck 0s is not valid; expected a duration above 0.\n");
  }

  @Test
  void ledgerFromKafkaNeedsATopicAndIsNotForContinuous() {
    Run noTopic = run("verify", "../config/quickstart.yaml", "--ledger-kafka", "/x", "--run-id", "r-1");
    assertThat(noTopic.code()).isEqualTo(2);
    assertThat(noTopic.err()).isEqualTo("logbench: verify: --ledger-kafka '/x' is not a ledger topic; expected"
        + " BOOTSTRAP or BOOTSTRAP/TOPIC, such as 127.0.0.1:9092/logbench-ledger.\n");
    Run continuous = run("verify", "../config/quickstart.yaml", "--continuous", "--run-id", "r-1");
    assertThat(continuous.code()).isEqualTo(2);
    assertThat(continuous.err()).startsWith("logbench: verify: --continuous follows a live run through its run"
        + " directory; the ledger in Kafka");
  }
}
