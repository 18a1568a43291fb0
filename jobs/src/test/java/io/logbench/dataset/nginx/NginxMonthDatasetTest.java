package io.logbench.dataset.nginx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.nginx.NginxMonthDataset.Mode;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** nginx-month against the seed 004 script's own counts, and its cursors against each other. */
class NginxMonthDatasetTest {

  static final NginxMonthDataset PYTHON = new NginxMonthDataset(8, Mode.PYTHON_COMPATIBLE);
  static final NginxMonthDataset FAST = new NginxMonthDataset(8, Mode.FAST);

  static String resource(String name) throws IOException {
    try (InputStream in = NginxMonthDatasetTest.class.getResourceAsStream("/seed004/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  @Test
  void monthHoldsTheScriptsLineCount() {
    assertThat(PYTHON.size()).isEqualTo(712_743_010L);
    assertThat(FAST.size()).isEqualTo(712_743_010L);
  }

  @Test
  void everyMinuteCountEqualsTheScripts() throws Exception {
    StringBuilder csv = new StringBuilder();
    for (int m = 0; m < NginxPrelude.MINUTES; m++) {
      csv.append(m).append(',').append(PYTHON.linesInMinute(m)).append('\n');
    }
    // sha256 of the script's "counts" output (seed004_reference.py counts)
    assertThat(sha256(csv.toString().getBytes(StandardCharsets.US_ASCII)))
        .isEqualTo(resource("script-minute-counts.sha256").trim());
  }

  @Test
  void everyDayCountEqualsTheScripts() throws Exception {
    List<String> expected = resource("script-day-lines.csv").lines().skip(1).toList();
    assertThat(expected).hasSize(31);
    for (int d = 0; d < 31; d++) {
      long lines = PYTHON.linesBefore((d + 1) * 1440) - PYTHON.linesBefore(d * 1440);
      assertThat(String.format("2021-05-%02d,%d", d + 1, lines)).isEqualTo(expected.get(d));
    }
  }

  @Test
  void firstLinesAreTheScriptsFirstLines() {
    // the script's first three lines (TZ=America/Sao_Paulo), also in its file 2021-05-01.log
    assertThat(lines(PYTHON, 0, 3))
        .containsExactly(
            "{ \"time\":\"[01/May/2021:00:00:00.000 -0300]\", \"path\":\"page293\", \"status\":\"200\" }",
            "{ \"time\":\"[01/May/2021:00:00:00.004 -0300]\", \"path\":\"page199\", \"status\":\"304\" }",
            "{ \"time\":\"[01/May/2021:00:00:00.009 -0300]\", \"path\":\"page249\", \"status\":\"200\" }");
  }

  @Test
  void lastLineOfAMinuteSitsAt59Seconds() {
    long last = PYTHON.linesBefore(1) - 1;
    assertThat(PYTHON.timestampMillis(last) - PYTHON.minuteStartMillis(0)).isEqualTo(59_000);
    assertThat(lines(PYTHON, last, 1).get(0)).contains("[01/May/2021:00:00:59.000 -0300]");
  }

  @Test
  void aCursorStartedAnywhereMakesTheSameLinesAsOneThatGotThereByDrawing() {
    Random random = new Random(4);
    for (int t = 0; t < 6; t++) {
      long index = (long) (random.nextDouble() * (PYTHON.size() - 100));
      long earlier = Math.max(0, index - 5000 - random.nextInt(3_000_000));
      LineCursor walked = PYTHON.cursor(earlier);
      walked.skipTo(index);
      assertThat(lines(walked, 40)).as("line %d", index).isEqualTo(lines(PYTHON, index, 40));
      Serializable token = PYTHON.resumeToken(index);
      assertThat(lines(PYTHON.cursor(index, token), 40)).isEqualTo(lines(PYTHON, index, 40));
    }
  }

  @Test
  void cursorsCannotGoBack() {
    LineCursor c = PYTHON.cursor(1000);
    assertThatThrownBy(() -> c.skipTo(10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cursor at line 1000 cannot go back to 10.");
    assertThatThrownBy(() -> PYTHON.cursor(-1))
        .hasMessage("Line index -1 is outside the nginx-month dataset [0, 712743010].");
  }

  @Test
  void timestampsAreNonDecreasingAndCountBeforeIsTheirExactInverse() {
    for (int m : new int[] {0, 1, 143, 144, 20_000, 44_495, 44_496, 44_639}) {
      long first = PYTHON.linesBefore(m);
      long end = PYTHON.linesBefore(m + 1);
      long previous = Long.MIN_VALUE;
      for (long i = first; i < end; i++) {
        long ts = PYTHON.timestampMillis(i);
        assertThat(ts).isGreaterThanOrEqualTo(previous);
        assertThat(ts).isBetween(PYTHON.minuteStartMillis(m), PYTHON.minuteStartMillis(m) + 59_000);
        previous = ts;
      }
      for (long t = PYTHON.minuteStartMillis(m) - 3; t <= PYTHON.minuteStartMillis(m + 1); t += 997) {
        long brute = first;
        for (long i = first; i < end; i++) {
          if (PYTHON.timestampMillis(i) < t) {
            brute = i + 1;
          }
        }
        if (t <= PYTHON.minuteStartMillis(m)) {
          brute = first;
        }
        assertThat(PYTHON.countBefore(t)).as("minute %d, t %d", m, t).isEqualTo(brute);
      }
    }
    assertThat(PYTHON.countBefore(PYTHON.firstMillis())).isZero();
    assertThat(PYTHON.countBefore(PYTHON.endMillis())).isEqualTo(PYTHON.size());
  }

  @Test
  void fastModeHasTheSameTimesAndFormatButItsOwnDraws() {
    Pattern line =
        Pattern.compile(
            "\\{ \"time\":\"\\[\\d\\d/May/2021:\\d\\d:\\d\\d:\\d\\d\\.\\d{3} -0300]\", "
                + "\"path\":\"page\\d{1,3}\", \"status\":\"(200|304|500|408|404|302)\" }");
    long index = PYTHON.linesBefore(30_000);
    List<String> fast = lines(FAST, index, 2000);
    List<String> python = lines(PYTHON, index, 2000);
    assertThat(fast).allMatch(l -> line.matcher(l).matches());
    assertThat(fast).isNotEqualTo(python);
    for (int k = 0; k < fast.size(); k++) {
      assertThat(fast.get(k).substring(0, 45)).isEqualTo(python.get(k).substring(0, 45));
    }
    assertThat(lines(FAST.cursor(index), 10)).isEqualTo(fast.subList(0, 10));
  }

  @Test
  void byteSizesEqualTheLinesMade() {
    for (NginxMonthDataset ds : List.of(PYTHON, FAST)) {
      long from = ds.linesBefore(100) + 17;
      long to = ds.linesBefore(103) + 5;
      long made = 0;
      for (String l : lines(ds, from, (int) (to - from))) {
        made += l.length();
      }
      assertThat(ds.byteSize(from, to)).as(ds.mode().key()).isEqualTo(made);
    }
  }

  static List<String> lines(NginxMonthDataset ds, long from, int n) {
    return lines(ds.cursor(from), n);
  }

  static List<String> lines(LineCursor cursor, int n) {
    LineBatch batch = new LineBatch();
    batch.reset(0, cursor.position());
    for (int k = 0; k < n; k++) {
      cursor.next(batch);
    }
    List<String> out = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      out.add(batch.lineAsString(k));
    }
    return out;
  }
}
