package io.logbench.dataset.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.dataset.KeyedCounts;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Counts by level and container against the lines the cursor makes. */
class AppJsonKeyedCountsTest {

  static final Pattern FIELDS =
      Pattern.compile("\"container\":\"([^\"]+)\",\"level\":\"([^\"]+)\"");

  /** Odd stream and block sizes, so ranges cut blocks and cycles anywhere. */
  static final AppJsonDataset DATASET =
      AppJsonDataset.builder().seed(11).lines(1_200_000).streams(7).streamBlock(13).build();

  @Test
  void countsEqualTheLinesCountedOneByOne() {
    long[] bounds = {5, 5, 6, 90, 1_000, 123_457, 1_048_577, 1_100_003};
    for (String key : List.of("level", "container")) {
      KeyedCounts counts = DATASET.keyedCounts(key);
      long[][] expected = countLines(key, bounds);
      assertThat(counts.count(bounds, 1)).as(key).isEqualTo(expected);
      assertThat(counts.count(bounds, 2)).as(key).isEqualTo(expected);
    }
  }

  @Test
  void valuesAreTheLevelsAndTheContainers() {
    assertThat(DATASET.countKeys()).containsExactly("level", "container");
    assertThat(DATASET.keyedCounts("level").values())
        .containsExactly("info", "debug", "warn", "error");
    assertThat(DATASET.keyedCounts("container").values())
        .containsExactly("k6-0", "k6-1", "k6-2", "k6-3", "k6-4", "k6-5", "k6-6");
    assertThatThrownBy(() -> DATASET.keyedCounts("status"))
        .hasMessage(
            "Dataset app-json cannot count lines by 'status'; it counts by level or container.");
  }

  @Test
  void containersOfAHugeDatasetAreArithmetic() {
    AppJsonDataset huge = AppJsonDataset.builder().lines(AppJsonDataset.MAX_LINES).build();
    long[][] counts =
        huge.keyedCounts("container").count(new long[] {0, AppJsonDataset.MAX_LINES}, 1);
    // 10^15 lines in blocks of 100 over 20 streams: 5 * 10^13 lines each
    assertThat(counts[0]).hasSize(20).containsOnly(50_000_000_000_000L);
  }

  static long[][] countLines(String key, long[] bounds) {
    List<String> values = DATASET.keyedCounts(key).values();
    long[][] counts = new long[bounds.length - 1][values.size()];
    LineCursor cursor = DATASET.cursor(bounds[0]);
    LineBatch batch = new LineBatch(1, 1024);
    for (int w = 0; w + 1 < bounds.length; w++) {
      for (long i = bounds[w]; i < bounds[w + 1]; i++) {
        batch.reset(0, i);
        cursor.next(batch);
        Matcher m = FIELDS.matcher(batch.lineAsString(0));
        assertThat(m.find()).isTrue();
        counts[w][values.indexOf(key.equals("container") ? m.group(1) : m.group(2))]++;
      }
    }
    return counts;
  }
}
