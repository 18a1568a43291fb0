package io.logbench.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A lease is on file before each batch is emitted, and written once every few batches. */
class StripeLeaseTest {

  @TempDir Path dir;

  private static long onFile(ReplayFiles files) throws IOException {
    return Long.parseLong(Files.readString(files.leaseFile("b", 1)).strip());
  }

  @Test
  void theLeaseIsAnUpperBoundWrittenEveryFourBatches() throws IOException {
    ReplayFiles files = ReplayFiles.in(dir);
    List<Long> values = new ArrayList<>();
    try (StripeLease lease = new StripeLease(files.lease("b", 1), 3, 4, ReplayFiles.Lease.NONE)) {
      for (long batch = 1; batch < 60; batch += 3) { // stripe 1 of 3
        lease.beforeEmit(batch);
        long written = onFile(files);
        assertThat(written).as("lease before batch %d", batch).isGreaterThanOrEqualTo(batch);
        if (values.isEmpty() || values.get(values.size() - 1) != written) {
          values.add(written);
        }
      }
    }
    // 20 batches, a write at batches 1, 13, 25, 37 and 49, each covering 4 batches of the stripe
    assertThat(values).containsExactly(10L, 22L, 34L, 46L, 58L);
  }

  @Test
  void aRestoredLeaseIsKeptUntilTheStripePassesIt() throws IOException {
    ReplayFiles files = ReplayFiles.in(dir);
    try (ReplayFiles.Lease f = files.lease("b", 1)) {
      f.write(22);
    }
    try (StripeLease lease = new StripeLease(files.lease("b", 1), 3, 4, 22)) {
      lease.beforeEmit(13);
      lease.beforeEmit(22);
      assertThat(onFile(files)).isEqualTo(22);
      lease.beforeEmit(25);
      assertThat(onFile(files)).isEqualTo(34);
      assertThat(lease.upTo()).isEqualTo(34);
    }
  }
}
