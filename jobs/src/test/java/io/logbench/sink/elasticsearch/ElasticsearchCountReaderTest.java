package io.logbench.sink.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.count.CountReader;
import io.logbench.sink.internal.SilentServer;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link ElasticsearchCountReader} when the backend gives no count: stopped, hanging, bad arguments. */
class ElasticsearchCountReaderTest {

  @Test
  void aStoppedServerIsAnIOExceptionNeverCounts() {
    String url = SilentServer.stoppedUrl();
    try (CountReader reader = ElasticsearchCountReader.builder().url(url).index("x").build()) {
      assertThatThrownBy(() -> reader.counts(0, 60_000, 60_000))
          .isInstanceOf(IOException.class)
          .hasMessage("Elasticsearch at " + url + " could not be reached for the refresh (connection refused or failed).");
      assertThatThrownBy(() -> reader.sequenceIds(0, 60_000, 10)).isInstanceOf(IOException.class);
    }
  }

  @Test
  void aHangingServerIsAnIOExceptionAfterTheRequestTimeout() {
    try (SilentServer silent = new SilentServer();
        CountReader reader =
            ElasticsearchCountReader.builder()
                .url(silent.url())
                .index("x")
                .authorization("Basic c2VjcmV0OnNlY3JldA==")
                .requestTimeout(Duration.ofMillis(300))
                .build()) {
      assertThatThrownBy(() -> reader.counts(0, 60_000, 60_000))
          .isInstanceOf(IOException.class)
          .hasMessage("Elasticsearch at " + silent.url() + " did not answer the refresh within 300 ms.")
          .hasMessageNotContaining("c2VjcmV0");
      assertThat(reader.toString()).doesNotContain("c2VjcmV0").contains("basic auth");
    }
  }

  @Test
  void windowsMustTileTheRange() {
    try (CountReader reader = ElasticsearchCountReader.builder().url(SilentServer.stoppedUrl()).build()) {
      assertThatThrownBy(() -> reader.counts(0, 90_000, 60_000))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("The counted range [0, 90000) is not a whole number of 60000 ms windows.");
    }
    assertThatThrownBy(() -> ElasticsearchCountReader.builder().url("http://x").maxBuckets(70_000).build())
        .hasMessage("The buckets per request must be between 1 and 65535 (search.max_buckets), got 70000.");
  }
}
