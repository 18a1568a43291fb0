package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code plan} against the seed 004 script's own counts. */
class PlanCommandTest {

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static String resource(String name) throws IOException {
    try (InputStream in = PlanCommandTest.class.getResourceAsStream("/seed004/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void monthByDayEqualsTheScriptsDailyCounts() throws Exception {
    Run r = run("plan", "../config/seed004-month.yaml", "--window", "1d", "--csv");
    assertThat(r.code()).isZero();
    List<String> rows = r.out().lines().toList();
    assertThat(rows.get(0)).isEqualTo("window_start,lines");
    List<String> script = resource("script-day-lines.csv").lines().skip(1).toList();
    assertThat(rows).hasSize(32);
    long total = 0;
    for (int d = 0; d < 31; d++) {
      String[] ours = rows.get(d + 1).split(",");
      String[] theirs = script.get(d).split(",");
      assertThat(ours[0]).isEqualTo(theirs[0] + "T00:00:00-03:00");
      assertThat(ours[1]).isEqualTo(theirs[1]);
      total += Long.parseLong(ours[1]);
    }
    assertThat(total).isEqualTo(712_743_010L);
  }

  @Test
  void monthByMinuteEqualsTheScriptsMinuteCounts() throws Exception {
    Run r = run("plan", "../config/seed004-month.yaml", "--window", "1m", "--csv");
    assertThat(r.code()).isZero();
    List<String> rows = r.out().lines().skip(1).toList();
    assertThat(rows).hasSize(44_640);
    assertThat(rows.get(0)).isEqualTo("2021-05-01T00:00:00-03:00,12370");
    assertThat(rows.get(44_639)).startsWith("2021-05-31T23:59:00-03:00,");
    StringBuilder asScript = new StringBuilder();
    for (int m = 0; m < rows.size(); m++) {
      asScript.append(m).append(',').append(rows.get(m).split(",")[1]).append('\n');
    }
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
        .digest(asScript.toString().getBytes(StandardCharsets.US_ASCII)));
    assertThat(sha).isEqualTo(resource("script-minute-counts.sha256").trim());
  }

  @Test
  void textPlanGivesTotalsAndWindows() {
    Run r = run("plan", "../config/quickstart.yaml", "--window", "15m");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("lines       716,707")
        .contains("bytes       56,400,870")
        .contains("schedule    replay at 60x the dataset's time")
        .contains("windows     4 of 15m, aligned to midnight in America/Sao_Paulo")
        .contains("2021-05-01T00:45:00-03:00")
        .contains("total                                716,707");
  }

  @Test
  void nowTimestampsFollowTheGivenStart() {
    Run r = run("plan", "../config/seed000-ladder.yaml", "--start", "2026-11-30T10:00:00Z", "--csv");
    assertThat(r.code()).isZero();
    List<String> rows = r.out().lines().toList();
    assertThat(rows.get(1)).startsWith("2026-11-30T10:00:00+00:00,");
    long total = rows.stream().skip(1).mapToLong(l -> Long.parseLong(l.split(",")[1])).sum();
    // seed 000's ladder: 30 s ramps and 2 min holds at 5k..100k lines/s
    assertThat(total).isBetween(42_749_999L, 42_750_001L);
  }

  @Test
  void badCommandLinesExitWith2AndSayWhy() {
    Run r = run("plan", "../config/quickstart.yaml", "--window", "7m");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("logbench: --window: \"7m\" is not valid; expected a window size that divides a day");
    assertThat(run("plan").err()).isEqualTo("logbench: plan: Missing required parameter: 'CONFIG'\n"
        + "Run 'logbench plan --help' for its arguments.\n");
    assertThat(run("plan", "x.yaml", "--bogus").err()).startsWith("logbench: plan: Unknown option: '--bogus'");
    assertThat(run("frobnicate").err())
        .startsWith("logbench: unknown command frobnicate; expected one of plan, dataset, publish, generate, verify,"
            + " help.");
    assertThat(run("plan", "../config/nope.yaml").err()).isEqualTo("logbench: ../config/nope.yaml: no such run file.\n");
    assertThat(run("dataset", "../config/quickstart.yaml").err())
        .startsWith("logbench: dataset: Missing required option: '--out=DIR'");
    Run badTime = run("dataset", "../config/quickstart.yaml", "--out", "x", "--from", "yesterday");
    assertThat(badTime.code()).isEqualTo(2);
    assertThat(badTime.err()).startsWith("logbench: dataset: Invalid value for option '--from': 'yesterday' is not a"
        + " time; expected ISO-8601 with an offset");
  }
}
