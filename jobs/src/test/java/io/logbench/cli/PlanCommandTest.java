package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

  /** May 1 of seed 004 (the case study's one-day range), as the script makes it. */
  static final String MAY_FIRST = String.join("\n",
      "name: may01",
      "dataset:",
      "  kind: nginx-month",
      "  mode: python-compatible",
      "  seed: 8",
      "  from: \"2021-05-01T00:00:00-03:00\"",
      "  until: \"2021-05-02T00:00:00-03:00\"",
      "window: 1h",
      "");

  static Path mayFirst(Path dir) throws IOException {
    return Files.writeString(dir.resolve("may01.yaml"), MAY_FIRST);
  }

  /**
   * The exact answers for May 1 equal the seed script's own tally: {@code seed004_reference.py
   * tally OUT 0 1440} (the script's draws for every line of the day, counted per status and per
   * path per hour and per day in Python) wrote the files in seed004/may01-by/;
   * Seed004ScriptTallyITCase runs the script again and compares.
   */
  @ParameterizedTest
  @CsvSource({"status,1h", "status,1d", "path,1h", "path,1d"})
  void mayFirstByKeyEqualsTheScriptsTally(String key, String window, @TempDir Path tmp)
      throws Exception {
    Run r = run("plan", mayFirst(tmp).toString(), "--by", key, "--window", window, "--csv");
    assertThat(r.err()).isEmpty();
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo(resource("may01-by/" + key + "-" + window + ".csv"));
  }

  @Test
  void byKeyTableListsEveryValueOfEveryWindowAndTheTotals(@TempDir Path tmp) throws Exception {
    Run r = run("plan", mayFirst(tmp).toString(), "--by", "status", "--window", "1d",
        "--parallelism", "1");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("lines       32,174,937")
        .contains("by          status: 6 values, counted from the dataset's draws (no line made)")
        .contains("window_start                  status          lines")
        .contains("2021-05-01T00:00:00-03:00     200         5,399,708")
        .contains("2021-05-01T00:00:00-03:00     500         7,559,547")
        .contains("total                         302         2,808,575");
  }

  @Test
  void byKeyFollowsTheRunsTimestamps() {
    // seed 000's ladder stamps lines with their send time: every minute's containers add up to it
    String ladder = "../config/seed000-ladder.yaml";
    Run lines = run("plan", ladder, "--start", "2026-11-30T10:00:00Z", "--csv");
    Run keyed = run("plan", ladder, "--start", "2026-11-30T10:00:00Z", "--csv", "--by", "container");
    assertThat(keyed.code()).isZero();
    List<String> perWindow = lines.out().lines().skip(1).toList();
    List<String> perKey = keyed.out().lines().skip(1).toList();
    assertThat(perKey).hasSize(perWindow.size() * 20);
    for (int w = 0; w < perWindow.size(); w++) {
      String[] window = perWindow.get(w).split(",");
      long sum = 0;
      for (int s = 0; s < 20; s++) {
        String[] row = perKey.get(w * 20 + s).split(",");
        assertThat(row[0]).isEqualTo(window[0]);
        assertThat(row[1]).isEqualTo("k6-" + s);
        sum += Long.parseLong(row[2]);
      }
      assertThat(sum).as(window[0]).isEqualTo(Long.parseLong(window[1]));
    }
  }

  @Test
  void byKeyMistakesExitWith2AndSayWhy(@TempDir Path tmp) throws Exception {
    Run status = run("plan", "../config/seed000-ladder.yaml", "--by", "status");
    assertThat(status.code()).isEqualTo(2);
    assertThat(status.err()).startsWith("logbench: plan: --by status is not a field of dataset"
        + " app-json; expected level or container.");
    assertThat(run("plan", "../config/quickstart.yaml", "--by", "level").err()).startsWith(
        "logbench: plan: --by level is not a field of dataset nginx-month; expected status or"
            + " path.");
    assertThat(run("plan", "../config/quickstart.yaml", "--parallelism", "2").err()).startsWith(
        "logbench: plan: --parallelism sets the threads that count --by; give --by too.");
    assertThat(run("plan", mayFirst(tmp).toString(), "--by", "path", "--window", "1s").err())
        .startsWith("logbench: plan: --by path over 86,400 windows of 300 values makes"
            + " 25,920,000 counts, more than the 20,000,000 plan prints; use a longer --window.");
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
        .startsWith("logbench: unknown command frobnicate; expected one of quickstart, plan, dataset, publish, generate, verify, canary, report, query, compare, help.");
    assertThat(run("plan", "../config/nope.yaml").err()).isEqualTo("logbench: ../config/nope.yaml: no such run file.\n");
    assertThat(run("dataset", "../config/quickstart.yaml").err())
        .startsWith("logbench: dataset: Missing required option: '--out=DIR'");
    Run objectStore = run("dataset", "../config/quickstart.yaml", "--out", "s3://bucket/seed");
    assertThat(objectStore.code()).isEqualTo(2);
    assertThat(objectStore.err()).startsWith("logbench: dataset: --out s3://bucket/seed is not a local or mounted"
        + " directory; several tasks write each of the dataset's files at once, each chunk at its offset, which"
        + " object stores and other file systems reached by URI do not allow");
    Run badTime = run("dataset", "../config/quickstart.yaml", "--out", "x", "--from", "yesterday");
    assertThat(badTime.code()).isEqualTo(2);
    assertThat(badTime.err()).startsWith("logbench: dataset: Invalid value for option '--from': 'yesterday' is not a"
        + " time; expected ISO-8601 with an offset");
  }
}
