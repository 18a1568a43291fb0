package io.logbench.dataset.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.dataset.JsonEscaping;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Tests of {@link AppJsonDataset}: determinism, random access, JSON shape and time arithmetic. */
class AppJsonDatasetTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static AppJsonDataset dataset(long seed, long lines) {
    return AppJsonDataset.builder().seed(seed).lines(lines).build();
  }

  /** Lines {@code [from, from + n)} from one cursor, as separate byte arrays. */
  private static List<byte[]> lines(AppJsonDataset d, long from, int n) {
    LineCursor cursor = d.cursor(from);
    LineBatch batch = new LineBatch(n, 64);
    batch.reset(0, from);
    for (int k = 0; k < n; k++) {
      cursor.next(batch);
    }
    List<byte[]> out = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      out.add(Arrays.copyOfRange(batch.data(), batch.start(k), batch.end(k)));
    }
    return out;
  }

  @Test
  void sameSeedGivesSameBytes() {
    List<byte[]> a = lines(dataset(0, 5_000), 0, 5_000);
    List<byte[]> b = lines(dataset(0, 5_000), 0, 5_000);
    for (int k = 0; k < a.size(); k++) {
      assertThat(a.get(k)).as("line %d", k).isEqualTo(b.get(k));
    }
  }

  @Test
  void lineZeroOfSeedZeroIsTheOneTheDocsShow() {
    // docs/datasets.md; a change to how lines are made must not change a byte of them
    assertThat(new String(dataset(0, 1).line(0), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo(
        "{\"namespace\":\"loadtest\",\"container\":\"k6-0\",\"level\":\"debug\",\"msg\":\"request handled"
            + " path=/api/orders status=200\",\"trace_id\":\"e99ab66cbc1133dd9d56f2f7d201556d\",\"user_id\":\"u1853\","
            + "\"latency_ms\":569,\"seq\":0}");
  }

  @Test
  void differentSeedGivesDifferentBytes() {
    List<byte[]> a = lines(dataset(0, 1_000), 0, 1_000);
    List<byte[]> b = lines(dataset(1, 1_000), 0, 1_000);
    int same = 0;
    for (int k = 0; k < a.size(); k++) {
      if (Arrays.equals(a.get(k), b.get(k))) {
        same++;
      }
    }
    assertThat(same).isZero();
  }

  @Test
  void cursorStartedAnywhereMatchesSequentialLines() {
    AppJsonDataset d = AppJsonDataset.builder().seed(7).lines(3_000).rate(3_333).build();
    List<byte[]> sequential = lines(d, 0, 3_000);
    LineBatch sequentialMeta = new LineBatch();
    LineCursor all = d.cursor(0);
    for (int k = 0; k < 3_000; k++) {
      all.next(sequentialMeta);
    }
    SplittableRandom random = new SplittableRandom(1);
    for (int trial = 0; trial < 200; trial++) {
      int from = random.nextInt(3_000);
      int n = Math.min(3_000 - from, 1 + random.nextInt(250));
      LineBatch batch = new LineBatch();
      LineCursor cursor = d.cursor(from);
      for (int k = 0; k < n; k++) {
        cursor.next(batch);
      }
      assertThat(cursor.position()).isEqualTo(from + n);
      for (int k = 0; k < n; k++) {
        int i = from + k;
        assertThat(Arrays.copyOfRange(batch.data(), batch.start(k), batch.end(k)))
            .as("line %d", i)
            .isEqualTo(sequential.get(i))
            .isEqualTo(d.line(i));
        assertThat(batch.timestampMillis(k)).isEqualTo(sequentialMeta.timestampMillis(i));
        assertThat(batch.timestampMillis(k)).isEqualTo(d.timestampMillis(i));
        assertThat(batch.stream(k)).isEqualTo(sequentialMeta.stream(i)).isEqualTo(d.stream(i));
      }
    }
  }

  @Test
  void manyLinesAtOnceMatchLineByLine() {
    AppJsonDataset d = AppJsonDataset.builder().seed(11).lines(4_000).poolSize(700).build();
    List<byte[]> single = lines(d, 0, 4_000);
    LineCursor cursor = d.cursor(0);
    LineBatch batch = new LineBatch();
    SplittableRandom random = new SplittableRandom(2);
    while (cursor.position() < 4_000) {
      long from = cursor.position();
      int n = (int) Math.min(4_000 - from, 1 + random.nextInt(300));
      batch.reset(0, from);
      cursor.next(batch, n);
      assertThat(batch.count()).isEqualTo(n);
      assertThat(cursor.position()).isEqualTo(from + n);
      for (int k = 0; k < n; k++) {
        long i = from + k;
        assertThat(Arrays.copyOfRange(batch.data(), batch.start(k), batch.end(k)))
            .as("line %d", i)
            .isEqualTo(single.get((int) i));
        assertThat(batch.timestampMillis(k)).isEqualTo(d.timestampMillis(i));
        assertThat(batch.stream(k)).isEqualTo(d.stream(i));
      }
    }
    LineCursor nearEnd = d.cursor(3_990);
    assertThatThrownBy(() -> nearEnd.next(new LineBatch(), 11))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("at the end");
  }

  @Test
  void linesMadeEscapedAreTheRawLinesEscapedWhateverTheFormOfTheBatchBefore() {
    AppJsonDataset d = AppJsonDataset.builder().seed(13).lines(3_000).streams(3).streamBlock(7).poolSize(500)
        .runInBody("run-1").build();
    assertThat(d.makesJsonEscapedLines()).isTrue();
    List<byte[]> raw = lines(d, 0, 3_000);
    LineCursor cursor = d.cursor(0);
    SplittableRandom random = new SplittableRandom(3);
    int escapedBatches = 0;
    while (cursor.position() < 3_000) {
      long from = cursor.position();
      int n = (int) Math.min(3_000 - from, 1 + random.nextInt(200));
      // one cursor switching forms between batches, as a reader's never does but could
      boolean escaped = random.nextBoolean();
      LineBatch batch = new LineBatch(1, 16);
      batch.setJsonEscaped(escaped);
      batch.reset(0, from);
      if (n == 1) {
        cursor.next(batch);
      } else {
        cursor.next(batch, n);
      }
      escapedBatches += escaped ? 1 : 0;
      for (int k = 0; k < n; k++) {
        byte[] line = raw.get((int) (from + k));
        byte[] expected = escaped ? JsonEscaping.escape(line) : line;
        assertThat(Arrays.copyOfRange(batch.data(), batch.start(k), batch.end(k)))
            .as("line %d, escaped %s", from + k, escaped)
            .isEqualTo(expected);
        assertThat(batch.rawLine(k)).isEqualTo(line);
        assertThat(batch.timestampMillis(k)).isEqualTo(d.timestampMillis(from + k));
        assertThat(batch.stream(k)).isEqualTo(d.stream(from + k));
      }
    }
    assertThat(escapedBatches).isPositive();
    // the escaped bytes hold a quote only after a backslash: nothing left raw
    LineBatch one = new LineBatch();
    one.setJsonEscaped(true);
    d.cursor(5).next(one);
    String text = new String(one.data(), 0, one.byteSize(), java.nio.charset.StandardCharsets.US_ASCII);
    assertThat(text).startsWith("{\\\"namespace\\\":\\\"").contains("\\\"logbench_run\\\":\\\"run-1\\\"");
    assertThat(text.replace("\\\"", "")).doesNotContain("\"");
    // a pool too small to use every shared head makes escaped lines too
    AppJsonDataset small = AppJsonDataset.builder().seed(13).lines(50).poolSize(7).build();
    LineBatch few = new LineBatch();
    few.setJsonEscaped(true);
    small.cursor(0).next(few, 50);
    for (int k = 0; k < 50; k++) {
      assertThat(few.rawLine(k)).as("line %d of a pool of 7", k).isEqualTo(small.line(k));
    }
  }

  @Test
  void skipToMatchesStartingThere() {
    AppJsonDataset d = AppJsonDataset.builder().seed(3).lines(1_000).rate(7).build();
    LineCursor cursor = d.cursor(10);
    LineBatch batch = new LineBatch();
    cursor.next(batch);
    cursor.skipTo(517);
    assertThat(cursor.position()).isEqualTo(517);
    cursor.next(batch);
    assertThat(batch.lineAsString(1)).isEqualTo(new String(d.line(517)));
    assertThat(batch.timestampMillis(1)).isEqualTo(d.timestampMillis(517));
    assertThat(batch.stream(1)).isEqualTo(d.stream(517));
    assertThatThrownBy(() -> cursor.skipTo(100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only move forward");
    cursor.skipTo(1_000);
    assertThatThrownBy(() -> cursor.next(batch))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("at the end");
  }

  @Test
  void everyLineIsJsonWithThePoolSemantics() throws Exception {
    AppJsonDataset d = dataset(0, 20_000);
    AppJsonPool pool = d.pool();
    LineBatch batch = new LineBatch();
    LineCursor cursor = d.cursor(0);
    for (int k = 0; k < 20_000; k++) {
      cursor.next(batch);
    }
    for (int k = 0; k < 20_000; k++) {
      JsonNode node = JSON.readTree(batch.data(), batch.start(k), batch.length(k));
      List<String> names = new ArrayList<>();
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        names.add(it.next());
      }
      assertThat(names)
          .containsExactly(
              "namespace", "container", "level", "msg", "trace_id", "user_id", "latency_ms",
              "seq");
      int j = d.poolIndex(k);
      int stream = d.stream(k);
      assertThat(node.get("namespace").asText()).isEqualTo("loadtest");
      assertThat(node.get("container").asText()).isEqualTo("k6-" + stream);
      assertThat(node.get("level").asText())
          .isEqualTo(List.of("info", "info", "info", "debug", "warn", "error").get(j % 6));
      String msg = node.get("msg").asText();
      assertThat(msg)
          .matches("request handled path=(/api/orders|/api/users|/healthz|/api/checkout|/metrics)"
              + " status=(200|500)")
          .contains("path=" + AppJsonPool.PATHS[j % 5] + " ")
          .endsWith(j % 17 == 0 ? "status=500" : "status=200");
      assertThat(node.get("trace_id").asText()).matches("[0-9a-f]{32}").isEqualTo(pool.traceId(j));
      assertThat(node.get("user_id").asText()).matches("u[0-9]+").isEqualTo(pool.userId(j));
      assertThat(Integer.parseInt(node.get("user_id").asText().substring(1))).isBetween(0, 4999);
      assertThat(node.get("latency_ms").isInt()).isTrue();
      assertThat(node.get("latency_ms").asInt()).isBetween(0, 899).isEqualTo(pool.latencyMs(j));
      assertThat(node.get("seq").asLong()).isEqualTo(k);
    }
  }

  @Test
  void poolEntriesAreDrawnFromTheWholeRange() {
    AppJsonDataset d = dataset(0, 100_000);
    boolean[] seen = new boolean[d.poolSize()];
    int[] paths = new int[5];
    for (long i = 0; i < 100_000; i++) {
      int j = d.poolIndex(i);
      seen[j] = true;
      paths[j % 5]++;
    }
    // Each path is a fifth of the lines; 19k..21k is over six standard deviations wide.
    for (int c : paths) {
      assertThat(c).isBetween(19_000, 21_000);
    }
    int count = 0;
    for (boolean s : seen) {
      count += s ? 1 : 0;
    }
    // 100k picks from 5000 entries miss one with probability about e^-20.
    assertThat(count).isEqualTo(5_000);
    AppJsonPool pool = d.pool();
    long distinctUsers = java.util.stream.IntStream.range(0, 5_000)
        .mapToObj(pool::userId).distinct().count();
    assertThat(distinctUsers).isGreaterThan(2_000);
  }

  @Test
  void streamsFollowHundredLineBlocks() {
    AppJsonDataset d = dataset(0, 10_000);
    LineBatch batch = new LineBatch();
    LineCursor cursor = d.cursor(0);
    for (int k = 0; k < 10_000; k++) {
      cursor.next(batch);
    }
    for (int k = 0; k < 10_000; k++) {
      assertThat(batch.stream(k)).as("line %d", k).isEqualTo((k / 100) % 20);
      assertThat(d.stream(k)).isEqualTo((k / 100) % 20);
    }
    assertThat(d.streams().size()).isEqualTo(20);
    assertThat(d.streams().labelNames()).containsExactly("namespace", "container");
    assertThat(d.streams().labels(19))
        .containsExactly(
            java.util.Map.entry("namespace", "loadtest"), java.util.Map.entry("container", "k6-19"));
  }

  @Test
  void meanLineLengthIsNearTheK6Lines() {
    AppJsonDataset d = dataset(0, 100_000);
    LineBatch batch = new LineBatch(100_000, 1 << 20);
    LineCursor cursor = d.cursor(0);
    for (int k = 0; k < 100_000; k++) {
      cursor.next(batch);
    }
    double mean = batch.byteSize() / 100_000.0;
    System.out.printf("app-json seed 0: mean line length over 100k lines %.2f bytes%n", mean);
    assertThat(mean).isBetween(150.0, 260.0);
  }

  @Test
  void timestampsFollowTheNominalRate() {
    AppJsonDataset d = dataset(0, 100_000);
    long start = Instant.parse("2026-10-13T08:12:46Z").toEpochMilli();
    assertThat(d.firstMillis()).isEqualTo(start);
    assertThat(d.timestampMillis(9)).isEqualTo(start);
    assertThat(d.timestampMillis(10)).isEqualTo(start + 1);
    assertThat(d.timestampMillis(99_999)).isEqualTo(start + 9_999);
    assertThat(d.endMillis()).isEqualTo(start + 10_000);
  }

  @Test
  void countBeforeMatchesBruteForce() {
    long start = 1_000_000L;
    for (long rate : new long[] {1, 3, 7, 999, 1000, 1001, 3_333, 10_000, 123_457}) {
      for (long n : new long[] {0, 1, 2, 17, 1_000, 4_321}) {
        AppJsonDataset d =
            AppJsonDataset.builder().seed(0).lines(n).rate(rate).startMillis(start).poolSize(1)
                .build();
        long[] ts = new long[(int) n];
        for (int i = 0; i < n; i++) {
          ts[i] = d.timestampMillis(i);
          if (i > 0) {
            assertThat(ts[i]).isGreaterThanOrEqualTo(ts[i - 1]);
          }
        }
        long last = n == 0 ? start : ts[(int) n - 1];
        assertThat(d.endMillis()).isGreaterThan(n == 0 ? start - 1 : last);
        for (long t = start - 3; t <= last + 3; t++) {
          long brute = 0;
          for (long x : ts) {
            brute += x < t ? 1 : 0;
          }
          assertThat(d.countBefore(t)).as("rate %d, n %d, t %d", rate, n, t).isEqualTo(brute);
        }
        assertThat(d.countBefore(d.endMillis())).isEqualTo(n);
        assertThat(d.countBefore(Long.MAX_VALUE)).isEqualTo(n);
        assertThat(d.countBefore(Long.MIN_VALUE)).isZero();
      }
    }
  }

  @Test
  void survivesJavaSerialization() throws Exception {
    AppJsonDataset d = AppJsonDataset.builder().seed(42).lines(500).streams(3).build();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(d);
    }
    AppJsonDataset copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (AppJsonDataset) in.readObject();
    }
    // The pool is rebuilt, not shipped.
    assertThat(bytes.size()).isLessThan(2_000);
    for (int i = 0; i < 500; i++) {
      assertThat(copy.line(i)).isEqualTo(d.line(i));
    }
    assertThat(copy.streams().size()).isEqualTo(3);
  }

  @Test
  void rejectsInvalidSettings() {
    assertThatThrownBy(() -> AppJsonDataset.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The number of lines of app-json must be set.");
    assertThatThrownBy(() -> AppJsonDataset.builder().lines(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The number of lines must be within [0, 1000000000000000], got -1.");
    assertThatThrownBy(() -> AppJsonDataset.builder().lines(1).streams(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The number of streams must be at least 1, got 0.");
    assertThatThrownBy(() -> AppJsonDataset.builder().lines(1).poolSize(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The pool size must be at least 1, got 0.");
    assertThatThrownBy(() -> AppJsonDataset.builder().lines(1).streamBlock(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The stream block must be at least 1 line, got 0.");
    assertThatThrownBy(() -> AppJsonDataset.builder().lines(1).rate(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("The rate must be within [1, 1000000000000] lines per second, got 0.");
    assertThatThrownBy(() -> AppJsonDataset.builder().lines(1).rate(-5).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got -5.");
    AppJsonDataset d = dataset(0, 10);
    assertThatThrownBy(() -> d.cursor(11))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A cursor must start within [0, 10], got 11.");
    assertThatThrownBy(() -> d.line(-1))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage("Line -1 is outside [0, 10) of the app-json dataset.");
    assertThatThrownBy(() -> d.timestampMillis(10))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage("Line 10 is outside [0, 10) of the app-json dataset.");
  }
}
