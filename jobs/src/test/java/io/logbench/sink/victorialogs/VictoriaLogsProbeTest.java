package io.logbench.sink.victorialogs;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.count.VisibilityProbe.Sample;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The text of the probe's sample query (its counts are checked on the emulator and real VictoriaLogs). */
class VictoriaLogsProbeTest {

  private static final long T = 1_620_000_000_000_000_000L; // 2021-05-03T00:00:00Z in ns

  @Test
  void samplesAreSearchedWithinTheRangeThatSpansThemAllWhateverTheirOrder() {
    List<Sample> samples = List.of(new Sample(200, 100, T + 2_000_000_000L, T + 2_004_950_000L),
        new Sample(0, 100, T + 1_000, T + 4_951_000L),
        new Sample(100, 100, T + 1_000_000_000L, T + 1_004_950_000L));

    assertThat(VictoriaLogsProbe.samplesQuery("{a=\"b\"}", samples)).isEqualTo("{a=\"b\"}"
        + " _time:[2021-05-03T00:00:00.000001Z, 2021-05-03T00:00:02.004950Z]"
        + " (_time:[2021-05-03T00:00:02Z, 2021-05-03T00:00:02.004950Z]"
        + " or _time:[2021-05-03T00:00:00.000001Z, 2021-05-03T00:00:00.004951Z]"
        + " or _time:[2021-05-03T00:00:01Z, 2021-05-03T00:00:01.004950Z])"
        + " | stats count() if (_time:[2021-05-03T00:00:02Z, 2021-05-03T00:00:02.004950Z]) s0,"
        + " count() if (_time:[2021-05-03T00:00:00.000001Z, 2021-05-03T00:00:00.004951Z]) s1,"
        + " count() if (_time:[2021-05-03T00:00:01Z, 2021-05-03T00:00:01.004950Z]) s2");
  }
}
