package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code plan --by status} and {@code --by path} for May 1 against the seed 004 script run here
 * and now: {@code seed004_reference.py tally} draws every line of the day with the script's own
 * code ({@code random.seed(8)}, its weighted lists, its rate curve, two {@code random.choice}
 * calls a line) and counts the lines per status and per path per hour and per day in Python.
 * Every count must be equal, and equal to the copy in seed004/may01-by/ that the unit tests use.
 *
 * <p>It needs Debian's python3 with numpy and pandas ({@code .ci/run} installs them). Without
 * them it fails under CI ({@code CI} set) and is skipped, saying why, elsewhere.
 */
class Seed004ScriptTallyITCase {

  static final Path SCRIPT = Path.of("src/test/resources/seed004/seed004_reference.py");
  static final Path STORED = Path.of("src/test/resources/seed004/may01-by");
  /** The script draws 32 million lines in about 20 s of CPU; leave room for a loaded machine. */
  static final long SCRIPT_TIMEOUT_SECONDS = 300;

  @TempDir Path tmp;

  @Test
  void mayFirstByStatusAndPathEqualsTheScriptsOwnTally() throws Exception {
    String python = pythonWithNumpyAndPandas();
    Path out = tmp.resolve("tally");
    Path log = tmp.resolve("script.log");
    ProcessBuilder builder =
        new ProcessBuilder(python, SCRIPT.toString(), "tally", out.toString(), "0", "1440")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("TZ", "America/Sao_Paulo"); // as the script ran
    // The script draws while logbench counts the same day here.
    Process script = builder.start();
    Path config = PlanCommandTest.mayFirst(tmp);
    for (String key : List.of("status", "path")) {
      for (String window : List.of("1h", "1d")) {
        PlanCommandTest.Run plan = PlanCommandTest.run(
            "plan", config.toString(), "--by", key, "--window", window, "--csv");
        assertThat(plan.code()).as(plan.err()).isZero();
        Files.writeString(tmp.resolve(key + "-" + window + ".plan.csv"), plan.out());
      }
    }
    if (!script.waitFor(SCRIPT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      script.destroyForcibly();
      fail("The seed script did not finish its tally of May 1 within " + SCRIPT_TIMEOUT_SECONDS
          + " s.");
    }
    assertThat(script.exitValue()).as(Files.readString(log)).isZero();
    for (String key : List.of("status", "path")) {
      for (String window : List.of("1h", "1d")) {
        String name = key + "-" + window + ".csv";
        String theirs = Files.readString(out.resolve(name));
        assertThat(theirs.lines().count()).as(name)
            .isEqualTo(1 + (window.equals("1h") ? 24 : 1) * (key.equals("status") ? 6 : 300));
        String ours = Files.readString(tmp.resolve(key + "-" + window + ".plan.csv"));
        assertThat(ours).as(name).isEqualTo(theirs);
        assertThat(Files.readString(STORED.resolve(name))).as(name).isEqualTo(theirs);
      }
    }
  }

  /** Debian's python3 (numpy and pandas come as Debian packages), else the first on the PATH. */
  static String pythonWithNumpyAndPandas() throws IOException, InterruptedException {
    for (String python : List.of("/usr/bin/python3", "python3")) {
      try {
        Process p = new ProcessBuilder(python, "-c", "import numpy, pandas")
            .redirectErrorStream(true)
            .start();
        p.getInputStream().readAllBytes();
        if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return python;
        }
      } catch (IOException e) {
        // not installed: try the next
      }
    }
    String why = "The seed 004 script needs python3 with numpy and pandas"
        + " (apt-get install python3-numpy python3-pandas); none was found.";
    if (System.getenv("CI") != null) {
      fail(why + " CI must run this check: .ci/run installs them.");
    }
    Assumptions.abort(why);
    return null;
  }
}
