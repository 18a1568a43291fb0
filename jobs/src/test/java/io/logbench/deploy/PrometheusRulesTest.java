package io.logbench.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.testing.RealServers;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/prometheus/'s alert rules as Prometheus takes them: {@code promtool check rules} accepts
 * the file, and {@code promtool test rules} runs its unit tests (input series, the alerts expected
 * when), and a rule broken on purpose fails them. promtool is {@code LOGBENCH_PROMTOOL_BIN}, or
 * {@code promtool} on the PATH (Debian's {@code prometheus} package); without it the tests are
 * skipped, saying so in one line. That the rules name series the canary really exports is {@code
 * io.logbench.metrics.CanaryPrometheusITCase}'s.
 */
class PrometheusRulesTest {

  static final Path DIR = Path.of("..").toAbsolutePath().normalize().resolve("deploy/prometheus");
  static final String RULES = "logbench-canary.rules.yaml";
  static final String TESTS = "logbench-canary.rules.test.yaml";

  @TempDir Path tmp;

  /** promtool, or the test is skipped. */
  static Path promtool() {
    Path bin = RealServers.binary("LOGBENCH_PROMTOOL_BIN");
    if (bin != null) {
      return bin;
    }
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(d.isEmpty() ? "." : d, "promtool");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw RealServers.skip("promtool", "set LOGBENCH_PROMTOOL_BIN or put promtool on the PATH (Debian: apt-get"
        + " install prometheus)");
  }

  /** Runs promtool with {@code args} in {@code dir}; returns its exit code and output. */
  static Result run(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(promtool().toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("promtool %s ended", args[0]).isTrue();
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }

  record Result(int code, String output) {}

  @Test
  void theRulesAreValid() throws Exception {
    Result r = run(DIR, "check", "rules", RULES);
    assertThat(r.code()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS: 5 rules found");
  }

  @Test
  void theRulesPassTheirUnitTests() throws Exception {
    Result r = run(DIR, "test", "rules", TESTS);
    assertThat(r.code()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS");
  }

  @Test
  void aRuleThatWaitsLongerFailsTheUnitTests() throws Exception {
    Files.copy(DIR.resolve(TESTS), tmp.resolve(TESTS));
    String rules = Files.readString(DIR.resolve(RULES));
    // the stall alert's threshold doubled: it no longer fires at 32 min
    assertThat(rules).contains("canaryNewestSettledWindowSeconds)) > 900");
    Files.writeString(tmp.resolve(RULES), rules.replace("canaryNewestSettledWindowSeconds)) > 900",
        "canaryNewestSettledWindowSeconds)) > 1800"));
    Result r = run(tmp, "test", "rules", TESTS);
    assertThat(r.code()).as(r.output()).isNotZero();
    assertThat(r.output()).contains("alertname: LogbenchCanaryVerificationStalled", "FAILED");
  }
}
