package io.logbench.sink.splunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.internal.FixedStreams;
import io.logbench.sink.internal.TestBatches;
import io.logbench.sink.splunk.internal.HecEncoder;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The exact bytes of HEC event bodies. */
class HecEncoderTest {

  @Test
  void eventsAreConcatenatedJsonWithMicrosecondTimesAndStreamFields() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("namespace", "loadtest");
    labels.put("container", "k6-3");
    long t0 = Instant.parse("2026-10-13T08:12:46Z").toEpochMilli();
    LineBatch batch = TestBatches.of(1, 7, t0, new int[] {0}, "{\"seq\":7,\"msg\":\"a\\\"b\"}", "x");
    String body =
        new String(
            new HecEncoder(new FixedStreams(labels), null, null, "logbench", "main", null).encode(batch),
            StandardCharsets.UTF_8);
    assertThat(body)
        .isEqualTo(
            "{\"time\":1791879166.000000,\"sourcetype\":\"logbench\",\"index\":\"main\","
                + "\"event\":\"{\\\"seq\\\":7,\\\"msg\\\":\\\"a\\\\\\\"b\\\"}\","
                + "\"fields\":{\"namespace\":\"loadtest\",\"container\":\"k6-3\",\"seq\":\"7\"}}"
                + "{\"time\":1791879166.001000,\"sourcetype\":\"logbench\",\"index\":\"main\","
                + "\"event\":\"x\",\"fields\":{\"namespace\":\"loadtest\",\"container\":\"k6-3\",\"seq\":\"8\"}}");
  }

  @Test
  void theRunIdIsAnIndexedFieldOfEveryEvent() {
    long t0 = Instant.parse("2026-10-13T08:12:46Z").toEpochMilli();
    LineBatch batch = TestBatches.of(1, 7, t0, new int[] {0}, "x");
    String body =
        new String(
            new HecEncoder(new FixedStreams(Map.of("job", "nginx")), null, null, "logbench", null, "run-a").encode(batch),
            StandardCharsets.UTF_8);
    assertThat(body)
        .isEqualTo("{\"time\":1791879166.000000,\"sourcetype\":\"logbench\",\"event\":\"x\","
            + "\"fields\":{\"job\":\"nginx\",\"logbench_run\":\"run-a\",\"seq\":\"7\"}}");
    assertThatThrownBy(() -> new HecEncoder(new FixedStreams(Map.of("logbench_run", "x")), null, null, "s", null, "r"))
        .hasMessage("The stream label logbench_run clashes with the field of the same name of every event.");
  }

  /**
   * The last nanosecond a line can have in a window's last second: truncated it stays in that
   * second (and millisecond); rounded to six digits it would be the next window's first instant.
   */
  @Test
  void aTimeAtTheLastNanosecondOfAWindowIsTruncatedNotRounded() {
    long windowEnd = Instant.parse("2021-05-01T03:01:00Z").toEpochMilli();
    // seq 999,998 has the largest nanosecond offset within its millisecond: 999,999 ns
    LineBatch batch = TestBatches.of(0, 999_998, windowEnd - 1, new int[] {0}, "last");
    assertThat(batch.timestampNanos(0)).isEqualTo(windowEnd * 1_000_000L - 1);
    String body =
        new String(new HecEncoder(new FixedStreams(Map.of("job", "x")), null, null, "logbench", null, null).encode(batch),
            StandardCharsets.UTF_8);
    assertThat(body).startsWith("{\"time\":1619838059.999999,");
    BigDecimal time = new BigDecimal(body.substring("{\"time\":".length(), body.indexOf(',')));
    assertThat(time.setScale(6, RoundingMode.HALF_UP)).isLessThan(BigDecimal.valueOf(windowEnd / 1000));
  }
}
