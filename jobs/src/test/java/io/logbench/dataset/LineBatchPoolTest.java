package io.logbench.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LineBatchPoolTest {

  @AfterEach
  void emptyThisThreadsPool() {
    while (LineBatchPool.take() != null) {
      // dropped
    }
  }

  private static LineBatch batch(long id, int lines, int lineBytes, boolean escaped) {
    LineBatch b = new LineBatch(1, 16);
    b.setJsonEscaped(escaped);
    b.reset(id, 1000 + id);
    for (int k = 0; k < lines; k++) {
      byte[] line = ("line " + id + "/" + k + " " + "x".repeat(lineBytes)).getBytes(StandardCharsets.UTF_8);
      b.append(line, 0, line.length, 5_000 + k, k % 4);
    }
    b.setScheduledNanos(42 + id);
    return b;
  }

  private static void assertSameContent(LineBatch actual, LineBatch expected) {
    assertThat(actual.batchId()).isEqualTo(expected.batchId());
    assertThat(actual.firstSeq()).isEqualTo(expected.firstSeq());
    assertThat(actual.scheduledNanos()).isEqualTo(expected.scheduledNanos());
    assertThat(actual.count()).isEqualTo(expected.count());
    assertThat(actual.byteSize()).isEqualTo(expected.byteSize());
    assertThat(actual.jsonEscaped()).isEqualTo(expected.jsonEscaped());
    for (int k = 0; k < expected.count(); k++) {
      assertThat(actual.lineAsString(k)).isEqualTo(expected.lineAsString(k));
      assertThat(actual.timestampMillis(k)).isEqualTo(expected.timestampMillis(k));
      assertThat(actual.stream(k)).isEqualTo(expected.stream(k));
      assertThat(actual.seq(k)).isEqualTo(expected.seq(k));
    }
  }

  /**
   * A batch filled again holds exactly what a fresh copy would: into a smaller batch (its arrays
   * grow), then a smaller content into that larger one (nothing of the earlier content shows), and
   * the form of the lines follows the content.
   */
  @Test
  void copyIntoAReusedBatchHoldsWhatACopyHolds() {
    LineBatch reused = batch(0, 2, 3, false);
    LineBatch big = batch(7, 300, 50, true);
    assertThat(big.copyInto(reused)).isSameAs(reused);
    assertSameContent(reused, big.copy());
    LineBatch small = batch(8, 3, 1, false);
    small.copyInto(reused);
    assertSameContent(reused, small);
  }

  /** A selected batch's own sequence ids come along, and a consecutive one's are dropped. */
  @Test
  void copyIntoCarriesSelectedSequenceIds() {
    java.util.BitSet odd = new java.util.BitSet();
    odd.set(1);
    odd.set(3);
    LineBatch selected = batch(3, 5, 2, false).select(odd);
    LineBatch reused = new LineBatch();
    selected.copyInto(reused);
    assertSameContent(reused, selected);
    batch(4, 2, 2, false).copyInto(reused);
    assertThat(reused.seq(1)).isEqualTo(1000 + 4 + 1);
  }

  /** Taken most recently given first; at most MAX kept; another thread's pool is its own. */
  @Test
  void eachThreadKeepsAtMostMaxBatchesForItself() throws Exception {
    assertThat(LineBatchPool.take()).isNull();
    LineBatch[] given = new LineBatch[LineBatchPool.MAX + 3];
    for (int i = 0; i < given.length; i++) {
      given[i] = new LineBatch();
      LineBatchPool.give(given[i]);
    }
    assertThat(LineBatchPool.size()).isEqualTo(LineBatchPool.MAX);
    AtomicReference<LineBatch> elsewhere = new AtomicReference<>(new LineBatch());
    Thread other = new Thread(() -> elsewhere.set(LineBatchPool.take()));
    other.start();
    other.join();
    assertThat(elsewhere.get()).isNull();
    for (int i = LineBatchPool.MAX - 1; i >= 0; i--) {
      assertThat(LineBatchPool.take()).isSameAs(given[i]);
    }
    assertThat(LineBatchPool.take()).isNull();
  }
}
