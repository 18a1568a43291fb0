package io.logbench.sink.elasticsearch;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.count.CountReader;
import io.logbench.dataset.LineBatch;
import io.logbench.http.HttpClients;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Preflight;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.elasticsearch.ElasticsearchBackend.Refresh;
import io.logbench.sink.emulator.WindowedPush;
import java.io.IOException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Runs never mix in Elasticsearch/OpenSearch, against a real OpenSearch 2.19.6 node: documents
 * of each run carry {@code logbench_run} (a keyword) and an {@code _id} of their own, a resend
 * within a run is answered 409 and never stored twice, and counts, the drill-down and the
 * pre-flight check tell the runs apart.
 */
class ElasticsearchRunsITCase {

  private static final long MINUTE = 60_000L;
  private final OpenSearchTestServer server = OpenSearchTestServer.get();
  private final WindowedPush data =
      new WindowedPush(MAY_2021_MILLIS + 17_000, 40, 283 * 40, MAY_2021_MILLIS, MINUTE, 5);

  private ElasticsearchBackend backend(String index) {
    return new ElasticsearchBackend("opensearch", "os", server.url(), index, null, Refresh.NONE,
        Duration.ofSeconds(60), Duration.ofSeconds(60));
  }

  private RunContext run(String id) {
    return RunContext.of(data.dataset().streams()).withRunId(id);
  }

  private static SendResult send(BatchSender sender, LineBatch batch) throws Exception {
    return sender.send(batch).get(120, TimeUnit.SECONDS);
  }

  /** Sends windows {@code [0, windows)} as run {@code id}, each accepted without a conflict. */
  private void push(ElasticsearchBackend backend, String id, int windows) throws Exception {
    try (BatchSender sender = backend.open(run(id))) {
      for (int k = 0; k < windows; k++) {
        SendResult r = send(sender, data.batch(k));
        assertThat(r.kind()).as(r.detail()).isEqualTo(SendResult.Kind.ACCEPTED);
        assertThat(r.detail()).as("no 409: documents of another run are not this run's").isEmpty();
      }
    }
  }

  private long[] counts(ElasticsearchBackend backend, RunContext run) throws IOException {
    try (CountReader reader = backend.openCounter(run)) {
      return reader.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 5 * MINUTE, MINUTE);
    }
  }

  @Test
  void twoRunsIntoOneIndexStoreTheirOwnDocumentsAndEachCountsItsOwn() throws Exception {
    ElasticsearchBackend os = backend("runs-two");
    push(os, "run-a", 5);
    push(os, "run-b", 2);
    assertThat(server.request("GET", "/runs-two/_mapping", null).body())
        .contains("\"logbench_run\":{\"type\":\"keyword\"}");
    long first = data.firstIndex(0);
    OpenSearchTestServer.Answer doc = server.request("GET", "/runs-two/_doc/run-b-" + first, null);
    assertThat(doc.status()).isEqualTo(200);
    assertThat(doc.body()).contains("\"logbench_run\":\"run-b\"", "\"seq\":" + first);

    long[] expected = data.expected();
    assertThat(counts(os, run("run-a"))).containsExactly(expected);
    assertThat(counts(os, run("run-b"))).containsExactly(expected[0], expected[1], 0, 0, 0);
    assertThat(counts(os, RunContext.of(data.dataset().streams())))
        .containsExactly(2 * expected[0], 2 * expected[1], expected[2], expected[3], expected[4]);
    try (CountReader reader = os.openCounter(run("run-b"))) {
      assertThat(reader.sequenceIds(MAY_2021_MILLIS, MAY_2021_MILLIS + MINUTE, 10_000))
          .containsExactlyElementsOf(data.ids(0));
    }

    long held = LongStream.of(expected).sum() + expected[0] + expected[1];
    long[] span = {MAY_2021_MILLIS + 17_000, MAY_2021_MILLIS + 5 * MINUTE};
    assertThat(os.preflight(Preflight.of(run("run-c"), span, MINUTE, ZoneOffset.UTC, span[0],
            System.currentTimeMillis())))
        .containsExactly("Backend 'os' already holds " + String.format(Locale.ROOT, "%,d", held) + " lines in the"
            + " run's time range from other runs; they are not counted as this run's (its lines carry run id run-c"
            + " and its counts filter by it).");
  }

  @Test
  void aResendWithinARunIsAnswered409AndNeverStoredTwiceWhileAnotherRunStoresItsOwn() throws Exception {
    ElasticsearchBackend os = backend("runs-resend");
    LineBatch batch = data.batch(0);
    try (BatchSender a = os.open(run("run-a")); BatchSender b = os.open(run("run-b"))) {
      assertThat(send(a, batch).detail()).isEmpty();
      SendResult again = send(a, batch);
      assertThat(again.kind()).isEqualTo(SendResult.Kind.ACCEPTED);
      assertThat(again.detail()).isEqualTo(batch.count()
          + " already stored by an earlier attempt of this run (409 version_conflict_engine_exception)");
      assertThat(send(b, batch).detail()).isEmpty();
    }
    assertThat(counts(os, run("run-a"))[0]).isEqualTo(batch.count());
    assertThat(counts(os, run("run-b"))[0]).isEqualTo(batch.count());
  }

  @Test
  void anIndexMadeBeforeRunIdsGetsTheRunFieldAsAKeyword() throws Exception {
    String old = "{\"mappings\":{\"properties\":{\"@timestamp\":{\"type\":\"date_nanos\"},"
        + "\"seq\":{\"type\":\"long\"},\"message\":{\"type\":\"text\"}}}}";
    assertThat(server.request("PUT", "/runs-old", old).status()).isEqualTo(200);
    try (HttpClients http = new HttpClients("it-ensure", Duration.ofSeconds(10))) {
      assertThat(ElasticsearchBackend.ensureIndex(http.client(), server.url(), "runs-old", null, Duration.ofSeconds(90)))
          .isFalse();
    }
    assertThat(server.request("GET", "/runs-old/_mapping", null).body())
        .contains("\"logbench_run\":{\"type\":\"keyword\"}");
    push(backend("runs-old"), "run-a", 1);
    assertThat(counts(backend("runs-old"), run("run-a"))[0]).isEqualTo(data.expected()[0]);
  }

  @Test
  void aRunFieldThatDynamicMappingMadeTextIsNamedAndStillCountedByItsKeywordSubField() throws Exception {
    // the first document came without the explicit mapping: logbench_run is text plus .keyword
    OpenSearchTestServer.Answer put = server.request("PUT", "/runs-dynamic/_doc/x?refresh=true",
        "{\"@timestamp\":\"2020-01-01T00:00:00Z\",\"logbench_run\":\"older-run\",\"seq\":0}");
    assertThat(put.status()).as(put.body()).isEqualTo(201);
    try (HttpClients http = new HttpClients("it-ensure", Duration.ofSeconds(10))) {
      assertThatThrownBy(() -> ElasticsearchBackend.ensureIndex(http.client(), server.url(), "runs-dynamic", null,
              Duration.ofSeconds(90)))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Adding the keyword field logbench_run to the index runs-dynamic at " + server.url()
              + " was answered 400: ");
    }
    // the sender goes on (the failure is logged) and counts filter on logbench_run.keyword
    push(backend("runs-dynamic"), "run-a", 2);
    push(backend("runs-dynamic"), "run-b", 1);
    long[] expected = data.expected();
    assertThat(counts(backend("runs-dynamic"), run("run-a"))).containsExactly(expected[0], expected[1], 0, 0, 0);
    assertThat(counts(backend("runs-dynamic"), run("run-b"))).containsExactly(expected[0], 0, 0, 0, 0);
  }
}
