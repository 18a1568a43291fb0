package io.logbench.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.schedule.KeyedWindowCounts;
import io.logbench.schedule.Timeline;
import io.logbench.schedule.TimestampMode;
import io.logbench.schedule.WindowCount;
import io.logbench.schedule.WindowCounts;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A run's counts by key per window against its lines made one by one, each put in the window of
 * the timestamp its timeline gives it, in the timestamp modes other than {@code original}.
 */
class RunPlanKeyedCountsTest {

  static final long RUN_START = Instant.parse("2026-11-30T10:00:00.250Z").toEpochMilli();

  @Test
  void compressedNginxSliceCountsAsItsLines() {
    RunPlan plan = plan("""
        dataset:
          kind: nginx-month
          mode: python-compatible
          from: "2021-05-01T10:00:00-03:00"
          until: "2021-05-01T10:02:00-03:00"
        schedule:
          kind: constant
          rate: 6000
        timestamps: compressed
        window: 1s
        """);
    assertThat(plan.timeline().mode()).isEqualTo(TimestampMode.COMPRESSED);
    Pattern field = Pattern.compile("\"status\":\"(\\d+)\"");
    check(plan, "status", field);
    check(plan, "path", Pattern.compile("\"path\":\"(page\\d+)\""));
  }

  @Test
  void appJsonAtItsSendTimesCountsAsItsLines() {
    RunPlan plan = plan("""
        dataset:
          kind: app-json
          streams: 7
        schedule:
          kind: ladder
          steps: [2000, 9000]
          ramp: 3s
          hold: 4s
        timestamps: now
        window: 1s
        """);
    assertThat(plan.timeline().mode()).isEqualTo(TimestampMode.NOW);
    check(plan, "level", Pattern.compile("\"level\":\"([a-z]+)\""));
    check(plan, "container", Pattern.compile("\"container\":\"(k6-\\d+)\""));
  }

  static RunPlan plan(String yaml) {
    RunConfig config = ConfigLoader.parse(yaml, "keyed");
    return RunPlan.of(config);
  }

  static void check(RunPlan plan, String key, Pattern field) {
    long[] span = plan.span(RUN_START);
    WindowCounts windows = plan.expectedCounts(RUN_START)
        .aligned(span[0], span[1], plan.config().window().toMillis(), plan.config().zone());
    assertThat(windows.windows()).hasSizeGreaterThan(5);
    KeyedWindowCounts keyed = plan.keyedCounts(key, windows, RUN_START, 2);

    List<String> values = keyed.values();
    List<WindowCount> rows = windows.windows();
    long[][] made = new long[rows.size()][values.size()];
    Timeline timeline = plan.timeline();
    LineCursor cursor = plan.dataset().cursor(plan.firstIndex());
    LineBatch batch = new LineBatch(1, 1024);
    int w = 0;
    for (long i = 0; i < plan.lines(); i++) {
      long index = plan.firstIndex() + i;
      long ts = timeline.lineMillis(i, plan.dataset().timestampMillis(index), RUN_START);
      while (ts >= rows.get(w).endMillis()) {
        w++;
      }
      assertThat(ts).isGreaterThanOrEqualTo(rows.get(w).startMillis());
      batch.reset(0, index);
      cursor.next(batch);
      Matcher m = field.matcher(batch.lineAsString(0));
      assertThat(m.find()).isTrue();
      made[w][values.indexOf(m.group(1))]++;
    }
    assertThat(keyed.counts()).as(key).isEqualTo(made);
    for (int k = 0; k < rows.size(); k++) {
      long sum = 0;
      for (long c : made[k]) {
        sum += c;
      }
      assertThat(sum).isEqualTo(rows.get(k).count());
    }
  }
}
