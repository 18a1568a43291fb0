package io.logbench.sink.splunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.internal.FixedStreams;
import io.logbench.sink.internal.TestBatches;
import io.logbench.sink.splunk.internal.HecEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The exact bytes of HEC event bodies. */
class HecEncoderTest {

  @Test
  void eventsAreConcatenatedJsonWithNanosecondTimesAndStreamFields() {
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
            "{\"time\":1791879166.000000008,\"sourcetype\":\"logbench\",\"index\":\"main\","
                + "\"event\":\"{\\\"seq\\\":7,\\\"msg\\\":\\\"a\\\\\\\"b\\\"}\","
                + "\"fields\":{\"namespace\":\"loadtest\",\"container\":\"k6-3\",\"seq\":\"7\"}}"
                + "{\"time\":1791879166.001000009,\"sourcetype\":\"logbench\",\"index\":\"main\","
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
        .isEqualTo("{\"time\":1791879166.000000008,\"sourcetype\":\"logbench\",\"event\":\"x\","
            + "\"fields\":{\"job\":\"nginx\",\"logbench_run\":\"run-a\",\"seq\":\"7\"}}");
    assertThatThrownBy(() -> new HecEncoder(new FixedStreams(Map.of("logbench_run", "x")), null, null, "s", null, "r"))
        .hasMessage("The stream label logbench_run clashes with the field of the same name of every event.");
  }
}
