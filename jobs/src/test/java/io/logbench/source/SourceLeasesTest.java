package io.logbench.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.replay.ReplayFiles;
import io.logbench.replay.ReplayedRange;
import io.logbench.replay.RestoreRecord;
import io.logbench.schedule.Schedule;
import io.logbench.source.internal.DatasetSourceReader;
import io.logbench.source.internal.LeaseSettings;
import io.logbench.source.internal.RunPlan;
import io.logbench.source.internal.StripeSplit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.InputStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The source's leases: on file before a batch leaves, and after a restore a record of what the
 * reader emits again that the failed attempt may have emitted.
 */
class SourceLeasesTest {

  private static final long START = 1_700_000_000_000L;

  @TempDir Path dir;

  /** 48 lines from dataset index 100 in batches of 5: batches 0..9, the last of 3 lines. */
  private static RunPlan plan() {
    TestDataset dataset = new TestDataset(1_000);
    Schedule schedule = ConstantRateSchedule.unpaced(48);
    return new RunPlan(dataset, 100, schedule, new OriginalTimeline(dataset, 100, 48), 5);
  }

  /** Collects batches and, as each arrives, reads its stripe's lease from the file. */
  private static final class LeaseCheckingOutput extends CollectingOutput {
    final ReplayFiles files;
    final List<long[]> leaseAtEmit = new ArrayList<>();

    LeaseCheckingOutput(ReplayFiles files) {
      this.files = files;
    }

    @Override
    public void collect(LineBatch batch) {
      try {
        long lease = Long.parseLong(Files.readString(files.leaseFile("vl", (int) (batch.batchId() % 2))).strip());
        leaseAtEmit.add(new long[] {batch.batchId(), lease});
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      super.collect(batch);
    }
  }

  @Test
  void everyBatchLeavesWithItsStripesLeaseAlreadyOnFileAtOrAboveIt() throws Exception {
    ReplayFiles files = ReplayFiles.in(dir);
    LeaseCheckingOutput out = new LeaseCheckingOutput(files);
    try (DatasetSourceReader reader = new DatasetSourceReader(plan(), new RecordingReaderContext(),
        null, new LeaseSettings(files, "vl", 3), false, false)) {
      reader.addSplits(List.of(new StripeSplit(0, 2, 0, START), new StripeSplit(1, 2, 1, START)));
      reader.notifyNoMoreSplits();
      while (reader.pollNext(out) == InputStatus.MORE_AVAILABLE) {
        // drain
      }
    }
    assertThat(out.ids()).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    assertThat(out.leaseAtEmit).allSatisfy(e -> assertThat(e[1]).isGreaterThanOrEqualTo(e[0]));
    // three batches of a stripe per write: stripe 0 wrote 4 (at 0) and 10 (at 6)
    assertThat(out.leaseAtEmit.stream().filter(e -> e[0] % 2 == 0).map(e -> e[1]).distinct().toList())
        .containsExactly(4L, 10L);
    // a fresh run records no restore
    assertThat(files.read()).isEmpty();
  }

  @Test
  void aRestoredReaderRecordsEveryBatchTheFailedAttemptEmittedAfterTheCheckpoint() throws Exception {
    ReplayFiles files = ReplayFiles.in(dir);
    CollectingOutput failed = new CollectingOutput();
    List<StripeSplit> state;
    try (DatasetSourceReader reader = new DatasetSourceReader(plan(), new RecordingReaderContext(),
        null, new LeaseSettings(files, "vl", 3), false, false)) {
      reader.addSplits(List.of(new StripeSplit(0, 2, 0, START), new StripeSplit(1, 2, 1, START)));
      for (int i = 0; i < 3; i++) {
        reader.pollNext(failed);
      }
      state = reader.snapshotState(7);
      reader.pollNext(failed); // batches 3 and 4 leave after checkpoint 7, then the task dies
      reader.pollNext(failed);
    }
    assertThat(failed.ids()).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(state).extracting(StripeSplit::checkpointId).containsOnly(7L);

    CollectingOutput restored = new CollectingOutput();
    try (DatasetSourceReader reader = new DatasetSourceReader(plan(), new RecordingReaderContext(),
        null, new LeaseSettings(files, "vl", 3), false, false)) {
      reader.addSplits(state);
      reader.notifyNoMoreSplits();
      while (reader.pollNext(restored) == InputStatus.MORE_AVAILABLE) {
        // drain
      }
    }
    assertThat(restored.ids()).containsExactly(3L, 4L, 5L, 6L, 7L, 8L, 9L);

    List<RestoreRecord> records = files.read();
    assertThat(records).hasSize(1);
    RestoreRecord r = records.get(0);
    assertThat(r.kind()).isEqualTo(RestoreRecord.SOURCE);
    assertThat(r.backend()).isEqualTo("vl");
    assertThat(r.subtask()).isZero();
    assertThat(r.checkpointId()).isEqualTo(7);
    // stripe 0 went back to 4 under lease 4 (written at 0); stripe 1 to 3 under lease 5 (at 1)
    assertThat(r.stripes()).containsExactlyInAnyOrder(
        new RestoreRecord.StripePosition(0, 2, 4, 4), new RestoreRecord.StripePosition(1, 2, 3, 5));
    assertThat(r.replayed()).containsExactlyInAnyOrder(
        ReplayedRange.stripe(4, 4, 2, 5, 100, 48), ReplayedRange.stripe(3, 5, 2, 5, 100, 48));
    // every line the failed attempt emitted after the checkpoint is covered (batch 5: lease slack)
    for (LineBatch b : failed.batches.subList(3, 5)) {
      for (int k = 0; k < b.count(); k++) {
        long seq = b.seq(k);
        assertThat(r.replayed().stream().anyMatch(x -> x.contains(seq))).as("seq %d", seq).isTrue();
      }
    }
    assertThat(r.batches()).isEqualTo(3);
  }
}
