package io.logbench.dataset.nginx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.dataset.KeyedCounts;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.nginx.NginxMonthDataset.Mode;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Counts by status and path against the lines the cursors make, in both modes. */
class NginxKeyedCountsTest {

  static final NginxMonthDataset PYTHON = NginxMonthDatasetTest.PYTHON;
  static final NginxMonthDataset FAST = NginxMonthDatasetTest.FAST;
  static final Pattern FIELDS = Pattern.compile("\"path\":\"(page\\d+)\", \"status\":\"(\\d{3})\"");
  static final long E = PythonCheckpoints.EVERY;

  /**
   * Ranges that start inside a recorded state's interval, cross two of them, hold an empty range
   * and one single line, and end inside a minute.
   */
  static final long[] BOUNDS = {
    3 * E - 70_001, 3 * E - 70_001, 3 * E - 3, 3 * E - 2, 3 * E + 40_000, 4 * E + 12_345
  };

  @Test
  void pythonCountsEqualTheLinesCountedOneByOne() {
    for (String key : List.of("status", "path")) {
      assertThat(PYTHON.keyedCounts(key).count(BOUNDS, 1))
          .isEqualTo(countLines(PYTHON, key, BOUNDS));
    }
  }

  @Test
  void fastCountsEqualTheLinesCountedOneByOne() {
    for (String key : List.of("status", "path")) {
      assertThat(FAST.keyedCounts(key).count(BOUNDS, 1)).isEqualTo(countLines(FAST, key, BOUNDS));
    }
  }

  @Test
  void parallelCountsEqualSerialOnes() {
    // 30 ranges over more than four recorded-state intervals, started mid-interval
    long[] bounds = new long[31];
    for (int w = 0; w < bounds.length; w++) {
      bounds[w] = 7 * E + 1_234 + w * 150_001L;
    }
    for (NginxMonthDataset ds : List.of(PYTHON, FAST)) {
      for (String key : List.of("status", "path")) {
        KeyedCounts counts = ds.keyedCounts(key);
        long[][] serial = counts.count(bounds, 1);
        assertThat(counts.count(bounds, 3)).as("%s %s", ds.mode().key(), key).isEqualTo(serial);
        for (int w = 0; w < serial.length; w++) {
          assertThat(sum(serial[w])).isEqualTo(bounds[w + 1] - bounds[w]);
        }
      }
    }
  }

  @Test
  void countingOnAColdGeneratorRecordsTheStatesThePassWouldRecord() {
    // seed 9: no other test has recorded its states in this JVM
    NginxMonthDataset cold = new NginxMonthDataset(9, Mode.PYTHON_COMPATIBLE);
    long[] bounds = {0, E / 2, 3 * E + 5};
    long[][] counts = cold.keyedCounts("path").count(bounds, 2);
    NginxPrelude prelude = cold.prelude();
    int[] weights = NginxMonthDataset.lineLengthByPathIndex(prelude.pathList());
    PythonRandom drawn = PythonRandom.fromState(prelude.loopState());
    for (int c = 1; c <= 3; c++) {
      drawn.skipPairs(E, prelude.statusList().length, prelude.pathList().length, weights);
      assertThat(PythonCheckpoints.of(cold).recordedTo(c * E)).as("state %d", c).isTrue();
      assertThat(PythonCheckpoints.of(cold).randomAt(c * E).state()).isEqualTo(drawn.state());
    }
    // the skip pass now runs over the offered states and checks each
    int minute = prelude.minuteOf(4 * E);
    assertThat(cold.minuteBytes(minute)).isPositive();
    assertThat(cold.keyedCounts("path").count(bounds, 2)).isEqualTo(counts);
    assertThat(sum(counts[0]) + sum(counts[1])).isEqualTo(3 * E + 5);
  }

  @Test
  void valuesAreStatusesAscendingAndTheScriptsPages() {
    assertThat(PYTHON.countKeys()).containsExactly("status", "path");
    assertThat(PYTHON.keyedCounts("status").values())
        .containsExactly("200", "302", "304", "404", "408", "500");
    List<String> paths = FAST.keyedCounts("path").values();
    assertThat(paths).hasSize(300);
    assertThat(paths.get(0)).isEqualTo("page0");
    assertThat(paths.get(299)).isEqualTo("page299");
  }

  @Test
  void badKeysAndBoundsAreRefused() {
    assertThatThrownBy(() -> PYTHON.keyedCounts("level"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Dataset nginx-month cannot count lines by 'level'; it counts by status or path.");
    KeyedCounts status = PYTHON.keyedCounts("status");
    assertThatThrownBy(() -> status.count(new long[] {10, 5}, 1))
        .hasMessage("Range bounds must not decrease, but bound 1 (5) is before bound 0 (10).");
    assertThatThrownBy(() -> status.count(new long[] {0, PYTHON.size() + 1}, 1))
        .hasMessage("Lines [0, 712743011) are not within the 712743010 lines of the dataset.");
    assertThatThrownBy(() -> status.count(new long[0], 1))
        .hasMessage("Counting lines by status needs at least one bound.");
    assertThat(status.count(new long[] {5}, 2)).isEmpty();
  }

  /** The lines of each range, made by a cursor and counted by the text of their fields. */
  static long[][] countLines(NginxMonthDataset ds, String key, long[] bounds) {
    List<String> values = ds.keyedCounts(key).values();
    long[][] counts = new long[bounds.length - 1][values.size()];
    LineCursor cursor = ds.cursor(bounds[0]);
    LineBatch batch = new LineBatch(1024, 1 << 17);
    for (int w = 0; w + 1 < bounds.length; w++) {
      for (long i = bounds[w]; i < bounds[w + 1]; i++) {
        batch.reset(0, i);
        cursor.next(batch);
        Matcher m = FIELDS.matcher(batch.lineAsString(0));
        assertThat(m.find()).isTrue();
        counts[w][values.indexOf(key.equals("path") ? m.group(1) : m.group(2))]++;
      }
    }
    return counts;
  }

  static long sum(long[] row) {
    long n = 0;
    for (long c : row) {
      n += c;
    }
    return n;
  }
}
