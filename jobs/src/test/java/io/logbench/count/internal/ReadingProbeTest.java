package io.logbench.count.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.count.CountReader;
import io.logbench.count.Probes;
import io.logbench.count.VisibilityProbe;
import io.logbench.dataset.app.AppJsonDataset;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The blocking readers' probe: ids read back per group of samples, on a thread of its own. */
class ReadingProbeTest {

  /** 200,000 lines, one per millisecond from 1,000,000 ms. */
  private static final AppJsonDataset DATASET =
      AppJsonDataset.builder().lines(200_000).streams(2).startMillis(1_000_000).rate(1_000).build();

  /** A reader of the lines the test made visible, ids as the backend lists them. */
  private static final class Reader implements CountReader {
    final TreeMap<Long, Long> visible = new TreeMap<>(); // seq -> its time
    final boolean nanoIds;
    boolean scans;
    boolean fail;
    final List<String> threads = new ArrayList<>();

    Reader(boolean nanoIds) {
      this.nanoIds = nanoIds;
    }

    void show(long from, long to) {
      for (long s = from; s < to; s++) {
        visible.put(s, DATASET.timestampMillis(s));
      }
    }

    @Override
    public long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException {
      threads.add(Thread.currentThread().getName());
      long[] c = new long[(int) ((toMillis - fromMillis) / windowMillis)];
      visible.values().forEach(t -> {
        if (t >= fromMillis && t < toMillis) {
          c[(int) ((t - fromMillis) / windowMillis)]++;
        }
      });
      return c;
    }

    @Override
    public List<Long> sequenceIds(long fromMillis, long toMillis, int limit) throws IOException {
      threads.add(Thread.currentThread().getName());
      if (fail) {
        throw new IOException("Backend b did not answer.");
      }
      List<Long> ids = new ArrayList<>();
      visible.forEach((s, t) -> {
        if (t >= fromMillis && t < toMillis && ids.size() < limit) {
          // a nanosecond offset id is seq mod 999,999: the same as seq below it, so shift it by one modulus
          ids.add(nanoIds ? s + 999_999L : s);
        }
      });
      return ids;
    }

    @Override
    public boolean scans() {
      return scans;
    }

    @Override
    public QueryStats stats() {
      return new QueryStats(0, 0);
    }

    @Override
    public void close() {}
  }

  @Test
  void eachSampleCountsItsOwnIdsOnceOnTheProbesThread() throws Exception {
    Reader reader = new Reader(false);
    try (ReadingProbe probe = new ReadingProbe(reader, false, "probe-thread")) {
      assertThat(probe.reach()).isEqualTo(VisibilityProbe.Reach.LINES);
      reader.show(0, 150);
      assertThat(Probes.counts(probe, List.of(Probes.sample(DATASET, 0, 100), Probes.sample(DATASET, 100, 100))))
          .containsExactly(100, 50);
      assertThat(Probes.run(probe, 1_000_000, 1_060_000, 60_000)).isEqualTo(150);
      assertThat(reader.threads).containsOnly("probe-thread");
    }
  }

  @Test
  void idsFromNanosecondOffsetsAreMappedBackToTheSample() throws Exception {
    Reader reader = new Reader(true);
    try (ReadingProbe probe = new ReadingProbe(reader, true, "probe")) {
      reader.show(300, 400);
      assertThat(Probes.counts(probe, List.of(Probes.sample(DATASET, 300, 100)))).containsExactly(100);
    }
  }

  @Test
  void nearbySamplesShareOneReadAndAScanningReaderReadsOnceForAll() throws Exception {
    for (boolean scans : new boolean[] {false, true}) {
      Reader reader = new Reader(false);
      reader.scans = scans;
      try (ReadingProbe probe = new ReadingProbe(reader, false, "probe")) {
        reader.show(0, 200);
        reader.show(100_000, 100_100);
        // 100 lines after the first: the same read; 100,000 after: a read of its own, unless the reader scans
        assertThat(Probes.counts(probe, List.of(Probes.sample(DATASET, 0, 100), Probes.sample(DATASET, 100, 100),
            Probes.sample(DATASET, 100_000, 100)))).containsExactly(100, 100, 100);
        assertThat(reader.threads).as("scans: %s", scans).hasSize(scans ? 1 : 2);
      }
    }
  }

  @Test
  void aFailedReadFailsTheAnswerAndAClosedProbeReadsNothing() {
    Reader reader = new Reader(false);
    ReadingProbe probe = new ReadingProbe(reader, false, "probe");
    reader.fail = true;
    assertThatThrownBy(() -> Probes.counts(probe, List.of(Probes.sample(DATASET, 0, 100))))
        .isInstanceOf(ExecutionException.class).hasRootCauseMessage("Backend b did not answer.");
    probe.close();
    assertThatThrownBy(() -> Probes.counts(probe, List.of(Probes.sample(DATASET, 0, 100))))
        .hasRootCauseMessage("The visibility probe is closed.");
  }
}
