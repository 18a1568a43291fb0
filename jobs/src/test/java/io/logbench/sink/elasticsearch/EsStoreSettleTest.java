package io.logbench.sink.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.sink.internal.CannedHttpServer;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link EsStoreSettle} against canned answers: the figure it reads is the one after merges end
 * and the stats stop moving, a merge that never ends is a partial figure at the timeout, and a
 * refused flush is an error. (On the real node, QuickstartGenerateITCase compares the settled
 * figure with the index files.)
 */
class EsStoreSettleTest {

  private static String stats(long merging, long merges, long bytes) {
    return "{\"_all\":{\"primaries\":{\"store\":{\"size_in_bytes\":" + bytes + "}},\"total\":{\"store\":"
        + "{\"size_in_bytes\":" + bytes + "},\"merges\":{\"current\":" + merging + ",\"total\":" + merges + "},"
        + "\"refresh\":{\"total\":7},\"flush\":{\"total\":2}}}}";
  }

  @Test
  void theSizeIsReadOnceMergesEndedAndTheStatsStoodStillLongerThanTheNodeCachesThem() throws IOException {
    try (CannedHttpServer server = new CannedHttpServer()) {
      server.answer(200, "{\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0}}")
          .answer(200, "{\"i\":{\"settings\":{\"index.store.stats_refresh_interval\":\"300ms\"}}}")
          .answer(200, stats(1, 4, 200_000))
          .answer(200, stats(0, 5, 230_000))
          .answer(200, stats(0, 5, 120_000));
      for (int k = 0; k < 20; k++) {
        server.answer(200, stats(0, 5, 120_000));
      }
      EsStoreSettle.Outcome o;
      try (ElasticsearchCountReader r = ElasticsearchCountReader.builder().url(server.url()).index("i").build()) {
        o = r.settledStore(Duration.ofSeconds(30));
      }
      assertThat(o.done()).isTrue();
      assertThat(o.total()).isEqualTo(120_000);
      assertThat(o.primaries()).isEqualTo(120_000);
      assertThat(server.requests().get(0).method()).isEqualTo("POST");
      assertThat(server.requests().get(0).uri()).isEqualTo("/i/_flush");
      assertThat(server.requests().get(1).uri())
          .isEqualTo("/i/_settings/index.store.stats_refresh_interval?include_defaults=true&flat_settings=true");
      // 120,000 is first answered to the fifth request (after the flush, the setting, 200,000 while
      // merging and 230,000); it must stand 300 ms + one poll (250 ms) before it is taken, which at
      // a read every 250 ms takes at least two more reads of it
      assertThat(server.requests().size() - 4).as("reads answered 120,000").isGreaterThanOrEqualTo(3);
    }
  }

  @Test
  void aMergeThatNeverEndsGivesThePartialFigureAtTheTimeout() throws IOException {
    try (CannedHttpServer server = new CannedHttpServer()) {
      server.answer(200, "{}").answer(404, "{\"error\":\"no\"}");
      for (int k = 0; k < 40; k++) {
        server.answer(200, stats(1, 3, 90_000));
      }
      EsStoreSettle.Outcome o;
      try (ElasticsearchCountReader r = ElasticsearchCountReader.builder().url(server.url()).index("i").build()) {
        o = r.settledStore(Duration.ofMillis(800));
      }
      assertThat(o.done()).isFalse();
      assertThat(o.mergesRunning()).isEqualTo(1);
      assertThat(o.total()).isEqualTo(90_000);
    }
  }

  @Test
  void aZeroTimeoutReadsTheSizeAsItStandsWithoutAFlush() throws IOException {
    try (CannedHttpServer server = new CannedHttpServer()) {
      server.answer(200, stats(2, 3, 70_000));
      EsStoreSettle.Outcome o;
      try (ElasticsearchCountReader r = ElasticsearchCountReader.builder().url(server.url()).index("i").build()) {
        o = r.settledStore(Duration.ZERO);
      }
      assertThat(o).isEqualTo(new EsStoreSettle.Outcome(false, 70_000, 70_000, 2));
      assertThat(server.requests()).hasSize(1);
      assertThat(server.requests().get(0).uri()).isEqualTo("/i/_stats/store,merge");
    }
  }

  @Test
  void aRefusedFlushOrAnswerWithoutASizeIsAnError() throws IOException {
    try (CannedHttpServer server = new CannedHttpServer();
        ElasticsearchCountReader r = ElasticsearchCountReader.builder().url(server.url()).index("i").build()) {
      server.answer(403, "{\"error\":\"forbidden\"}");
      assertThatThrownBy(() -> r.settledStore(Duration.ofSeconds(5))).isInstanceOf(IOException.class)
          .hasMessage("Elasticsearch at " + server.url() + " answered the flush of i with 403: {\"error\":\"forbidden\"}");
      server.answer(200, "{\"_all\":{\"total\":{}}}");
      assertThatThrownBy(() -> r.settledStore(Duration.ZERO)).isInstanceOf(IOException.class)
          .hasMessageStartingWith("Elasticsearch at " + server.url()
              + " answered the store stats of i without _all.total.store.size_in_bytes");
    }
  }

  @Test
  void timeValuesAndTheCacheSettingsDefault() {
    assertThat(EsStoreSettle.timeValue("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(EsStoreSettle.timeValue("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(EsStoreSettle.timeValue("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(EsStoreSettle.timeValue("-1")).isNull();
    assertThat(EsStoreSettle.timeValue("")).isNull();
  }
}
