package io.logbench.sink.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigNode;
import io.logbench.count.CountReader;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.http.HttpClients;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.Specs;
import io.logbench.sink.WindowGrid;
import io.logbench.sink.elasticsearch.ElasticsearchBackend.Refresh;
import io.logbench.testing.BoundaryLines;
import io.logbench.sink.internal.DelayingProxy;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ElasticsearchCountReader} against a real OpenSearch 2.19.6 node: three minutes of seed
 * 004 lines (fast mode) from 2021-05-01 00:00 America/Sao_Paulo written with {@link
 * ElasticsearchSender} into an index created by {@link ElasticsearchBackend#ensureIndex}, then
 * counted back on windows anchored at that midnight.
 */
class ElasticsearchCountReaderITCase {

  private static final ZoneId ZONE = ZoneId.of("America/Sao_Paulo");
  private static final long MIDNIGHT = LocalDate.of(2021, 5, 1).atStartOfDay(ZONE).toInstant().toEpochMilli();
  private static final long MINUTE = 60_000L;
  private static final String INDEX = "count-nginx";
  /** The same lines again, some of which a test deletes. */
  private static final String LOSS_INDEX = "count-loss";
  /** A document put exactly on the boundary 00:01:00.000 (lines from the sender never are). */
  private static final long BOUNDARY_SEQ = 900_000_000_000L;

  private static OpenSearchTestServer server;
  private static final List<Long> seqs = new ArrayList<>();
  private static final List<Long> millis = new ArrayList<>();

  @BeforeAll
  static void writeThreeMinutes() throws Exception {
    server = OpenSearchTestServer.get();
    try (HttpClients http = new HttpClients("it-ensure", Duration.ofSeconds(10))) {
      ElasticsearchBackend.ensureIndex(http.client(), server.url(), LOSS_INDEX, null, Duration.ofSeconds(90));
      assertThat(ElasticsearchBackend.ensureIndex(http.client(), server.url(), INDEX, null, Duration.ofSeconds(90)))
          .isTrue();
      assertThat(ElasticsearchBackend.ensureIndex(http.client(), server.url(), INDEX, null, Duration.ofSeconds(90)))
          .as("an existing index is left as it is")
          .isFalse();
    }
    assertThat(server.request("GET", "/" + INDEX + "/_mapping", null).body()).contains("\"date_nanos\"");
    NginxMonthDataset dataset = new NginxMonthDataset(8, NginxMonthDataset.Mode.FAST);
    long first = dataset.countBefore(MIDNIGHT);
    long end = dataset.countBefore(MIDNIGHT + 3 * MINUTE);
    LineCursor cursor = dataset.cursor(first);
    try (ElasticsearchSender sender =
            ElasticsearchSender.builder().url(server.url()).index(INDEX).streams(dataset.streams()).build();
        ElasticsearchSender lossSender =
            ElasticsearchSender.builder().url(server.url()).index(LOSS_INDEX).streams(dataset.streams()).build()) {
      long batchId = 0;
      for (long seq = first; seq < end; ) {
        int n = (int) Math.min(2_000, end - seq);
        LineBatch batch = new LineBatch(n, n * 128);
        batch.reset(batchId++, seq);
        for (int k = 0; k < n; k++) {
          cursor.next(batch);
          seqs.add(seq + k);
          millis.add(batch.timestampMillis(k));
        }
        SendResult r = sender.send(batch).get(120, TimeUnit.SECONDS);
        assertThat(r.kind()).as(r.detail()).isEqualTo(SendResult.Kind.ACCEPTED);
        SendResult again = lossSender.send(batch).get(120, TimeUnit.SECONDS);
        assertThat(again.kind()).as(again.detail()).isEqualTo(SendResult.Kind.ACCEPTED);
        seq += n;
      }
    }
    OpenSearchTestServer.Answer put =
        server.request(
            "PUT",
            "/" + INDEX + "/_doc/" + BOUNDARY_SEQ,
            "{\"@timestamp\":\"" + Instant.ofEpochMilli(MIDNIGHT + MINUTE) + "\",\"message\":\"on the boundary\",\"seq\":"
                + BOUNDARY_SEQ + "}");
    assertThat(put.status()).as(put.body()).isEqualTo(201);
    seqs.add(BOUNDARY_SEQ);
    millis.add(MIDNIGHT + MINUTE);
  }

  private static ElasticsearchCountReader reader(int maxBuckets) {
    return ElasticsearchCountReader.builder().url(server.url()).index(INDEX).maxBuckets(maxBuckets).build();
  }

  /** Lines written per window of {@code size} in [from, to), by the time each was sent with. */
  private static long[] written(long from, long to, long size, List<Long> skip) {
    WindowGrid grid = new WindowGrid(from, size);
    long[] out = new long[(int) ((to - from) / size)];
    for (int i = 0; i < seqs.size(); i++) {
      long t = millis.get(i);
      if (t >= from && t < to && !skip.contains(seqs.get(i))) {
        out[(int) ((grid.windowStart(t) - from) / size)]++;
      }
    }
    return out;
  }

  /**
   * OpenSearch behind a proxy that holds each request 1 s: a count is a count when {@code
   * query_timeout} allows it, though the push {@code timeout} is 200 ms; with {@code
   * query_timeout} 300 ms it is an error naming it.
   */
  @Test
  void aCountHasQueryTimeoutNotThePushTimeout() throws Exception {
    long from = MIDNIGHT;
    long to = MIDNIGHT + 3 * MINUTE;
    try (DelayingProxy slow = new DelayingProxy(server.url(), Duration.ofSeconds(1))) {
      String block = "kind: opensearch\nurl: " + slow.url() + "\nindex: " + INDEX + "\n";
      ElasticsearchBackend patient = Specs.parse(ElasticsearchBackend.TYPE,
          new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(block + "timeout: 200ms\nquery_timeout: 30s\n"), "backends[0]"));
      try (CountReader reader = patient.openCounter(RunContext.of(new NginxMonthDataset(8, NginxMonthDataset.Mode.FAST).streams()))) {
        assertThat(reader.counts(from, to, MINUTE)).containsExactly(written(from, to, MINUTE, List.of()));
        assertThat(reader.stats().nanos()).as("the answers took longer than timeout").isGreaterThan(1_000_000_000L);
      }
      ElasticsearchBackend impatient = Specs.parse(ElasticsearchBackend.TYPE,
          new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(block + "timeout: 30s\nquery_timeout: 300ms\n"), "backends[0]"));
      try (CountReader reader = impatient.openCounter(RunContext.of(new NginxMonthDataset(8, NginxMonthDataset.Mode.FAST).streams()))) {
        assertThatThrownBy(() -> reader.counts(from, to, MINUTE))
            .isInstanceOf(IOException.class)
            .hasMessageEndingWith(" within 300 ms.");
      }
    }
  }

  @Test
  void countsPerMinuteEqualTheLinesWrittenWithEmptyWindowsAsZero() throws Exception {
    long from = MIDNIGHT - 2 * MINUTE;
    long to = MIDNIGHT + 5 * MINUTE;
    try (CountReader reader = reader(ElasticsearchCountReader.DEFAULT_MAX_BUCKETS)) {
      long[] counts = reader.counts(from, to, MINUTE);
      assertThat(counts).containsExactly(written(from, to, MINUTE, List.of()));
      assertThat(counts[0]).isZero();
      assertThat(counts[1]).isZero();
      assertThat(counts[5]).isZero();
      assertThat(counts[6]).isZero();
      assertThat(LongStream.of(counts).sum()).isEqualTo(seqs.size());
      assertThat(reader.stats().requests()).as("one refresh and one search").isEqualTo(2);
    }
  }

  @Test
  void aDocumentOnABoundaryCountsInTheWindowItStarts() throws Exception {
    try (CountReader reader = reader(100)) {
      // 1 ms windows around 00:01:00.000: only the boundary document sits in [00:01:00.000, +1 ms)
      long[] counts = reader.counts(MIDNIGHT + MINUTE - 1, MIDNIGHT + MINUTE + 1, 1);
      long[] expected = written(MIDNIGHT + MINUTE - 1, MIDNIGHT + MINUTE + 1, 1, List.of());
      assertThat(counts).containsExactly(expected);
      assertThat(expected[1]).as("the boundary document is written in the window it starts").isPositive();
      assertThat(reader.sequenceIds(MIDNIGHT + MINUTE, MIDNIGHT + MINUTE + 1, 10)).contains(BOUNDARY_SEQ);
      assertThat(reader.sequenceIds(MIDNIGHT + MINUTE - 1, MIDNIGHT + MINUTE, 10_000)).doesNotContain(BOUNDARY_SEQ);
    }
  }

  @Test
  void windowsOffTheEpochGridFollowTheirAnchor() throws Exception {
    // 7 minutes does not divide 03:00 UTC, so the histogram needs an offset to start at midnight
    long size = 7 * MINUTE;
    long from = MIDNIGHT - 2 * size;
    long to = MIDNIGHT + 2 * size;
    try (CountReader reader = reader(ElasticsearchCountReader.DEFAULT_MAX_BUCKETS)) {
      long[] counts = reader.counts(from, to, size);
      assertThat(counts).containsExactly(0, 0, seqs.size(), 0);
    }
    // and on a grid anchored 90 s after midnight the lines straddle two windows
    try (CountReader reader = reader(ElasticsearchCountReader.DEFAULT_MAX_BUCKETS)) {
      long anchor = MIDNIGHT + 90_000;
      assertThat(reader.counts(anchor - size, anchor + size, size))
          .containsExactly(written(anchor - size, anchor + size, size, List.of()));
    }
  }

  @Test
  void aSmallBucketCapSplitsTheRangeIntoSeveralSearches() throws Exception {
    long from = MIDNIGHT - MINUTE;
    long to = MIDNIGHT + 4 * MINUTE;
    try (CountReader reader = reader(2)) {
      long[] counts = reader.counts(from, to, MINUTE);
      assertThat(counts).containsExactly(written(from, to, MINUTE, List.of()));
      assertThat(reader.stats().requests()).as("one refresh and three searches of at most 2 buckets").isEqualTo(4);
    }
    // 10 s windows: 30 buckets in pieces of 7
    try (CountReader reader = reader(7)) {
      assertThat(reader.counts(MIDNIGHT, MIDNIGHT + 5 * MINUTE, 10_000))
          .containsExactly(written(MIDNIGHT, MIDNIGHT + 5 * MINUTE, 10_000, List.of()));
      assertThat(reader.stats().requests()).isEqualTo(1 + 5);
    }
  }

  @Test
  void deletedDocumentsShowAsFewerLinesInExactlyTheirWindow() throws Exception {
    // LOSS_INDEX holds the same lines; the in-JVM node has no reindex module (so no
    // _delete_by_query): the lost documents are deleted by id, which is their seq
    String index = LOSS_INDEX;
    long window = MIDNIGHT + MINUTE;
    List<Long> inWindow = new ArrayList<>();
    for (int i = 0; i < seqs.size(); i++) {
      if (millis.get(i) >= window && millis.get(i) < window + MINUTE && seqs.get(i) != BOUNDARY_SEQ) {
        inWindow.add(seqs.get(i));
      }
    }
    List<Long> lost = List.of(inWindow.get(3), inWindow.get(500), inWindow.get(inWindow.size() - 1));
    for (long seq : lost) {
      OpenSearchTestServer.Answer deleted = server.request("DELETE", "/" + index + "/_doc/" + seq + "?refresh=true", null);
      assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
    }
    List<Long> notInLoss = List.of(BOUNDARY_SEQ);

    long from = MIDNIGHT;
    long to = MIDNIGHT + 3 * MINUTE;
    try (CountReader reader =
        ElasticsearchCountReader.builder().url(server.url()).index(index).build()) {
      long[] all = written(from, to, MINUTE, notInLoss);
      long[] counts = reader.counts(from, to, MINUTE);
      assertThat(counts).containsExactly(all[0], all[1] - 3, all[2]);
      List<Long> skip = new ArrayList<>(lost);
      skip.addAll(notInLoss);
      assertThat(counts).containsExactly(written(from, to, MINUTE, skip));

      List<Long> remaining = new ArrayList<>(inWindow);
      remaining.removeAll(lost);
      List<Long> listed = reader.sequenceIds(window, window + MINUTE, Integer.MAX_VALUE);
      assertThat(listed).hasSize(remaining.size()).isSorted();
      assertThat(listed).containsExactlyElementsOf(remaining.stream().sorted().collect(Collectors.toList()));
      assertThat(reader.sequenceIds(window, window + MINUTE, 5)).containsExactlyElementsOf(listed.subList(0, 5));
    }
  }

  @Test
  void minutesHoursAndDaysOfSaoPauloCountEveryBoundaryLineInItsWindow() throws Exception {
    String index = "count-boundaries";
    BoundaryLines lines = new BoundaryLines();
    try (HttpClients http = new HttpClients("it-ensure", Duration.ofSeconds(10))) {
      ElasticsearchBackend.ensureIndex(http.client(), server.url(), index, null, Duration.ofSeconds(90));
    }
    try (ElasticsearchSender sender =
        ElasticsearchSender.builder().url(server.url()).index(index).streams(lines.streams()).build()) {
      SendResult r = sender.send(lines.batch()).get(120, TimeUnit.SECONDS);
      assertThat(r.kind()).as(r.detail()).isEqualTo(SendResult.Kind.ACCEPTED);
    }
    try (CountReader reader = ElasticsearchCountReader.builder().url(server.url()).index(index).build()) {
      for (Duration size : BoundaryLines.SIZES) {
        assertThat(reader.counts(BoundaryLines.FROM, BoundaryLines.TO, size.toMillis())).as("%s windows", size)
            .containsExactly(lines.expected(size.toMillis()));
      }
    }
  }

  @Test
  void aMissingIndexHoldsNothing() throws Exception {
    try (CountReader reader = ElasticsearchCountReader.builder().url(server.url()).index("count-never-written").build()) {
      assertThat(reader.counts(MIDNIGHT, MIDNIGHT + 2 * MINUTE, MINUTE)).containsExactly(0, 0);
      assertThat(reader.sequenceIds(MIDNIGHT, MIDNIGHT + MINUTE, 10)).isEmpty();
    }
  }

  @Test
  void aBackendBlockOpensACounter() throws Exception {
    ElasticsearchBackend backend =
        new ElasticsearchBackend("opensearch", "os", server.url(), INDEX, null, Refresh.NONE,
            java.time.Duration.ofSeconds(10), java.time.Duration.ofSeconds(60));
    try (CountReader reader = backend.openCounter(RunContext.of(new NginxMonthDataset(8, NginxMonthDataset.Mode.FAST).streams()))) {
      assertThat(LongStream.of(reader.counts(MIDNIGHT, MIDNIGHT + 3 * MINUTE, MINUTE)).sum()).isEqualTo(seqs.size());
    }
  }
}
