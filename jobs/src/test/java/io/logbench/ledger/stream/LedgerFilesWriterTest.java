package io.logbench.ledger.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.ledger.RunSummary;
import io.logbench.rundir.ObjectStoreEmulator;
import io.logbench.rundir.RunDir;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LedgerFilesWriter} in Flink's operator harness, on a local run directory (the log is
 * appended to and truncated) and on the object store emulator (the log is segments written once):
 * a restore from a checkpoint drops what was logged after it, and readers merge what is left into
 * the same rows either way.
 */
class LedgerFilesWriterTest {

  private static final long T0 = 1_619_838_000_000L;
  private static final long MIN = 60_000;

  @TempDir Path tmp;

  private final String bucket = "ledger-writer-" + UUID.randomUUID().toString().substring(0, 8);

  @AfterEach
  void dropBucket() throws Exception {
    ObjectStoreEmulator.dropBucket(bucket);
  }

  private static LedgerEntry row(long window, long acked) {
    return new LedgerEntry("web", T0 + window * MIN, T0 + (window + 1) * MIN, 10, acked, acked, Map.of());
  }

  private static OneInputStreamOperatorTestHarness<LedgerEntry, Void> harness(RunDir dir, OperatorSubtaskState from)
      throws Exception {
    OneInputStreamOperatorTestHarness<LedgerEntry, Void> h =
        new OneInputStreamOperatorTestHarness<>(new LedgerFilesWriter(dir, "UTC", true));
    h.setup();
    if (from != null) {
      h.initializeState(from);
    }
    h.open();
    return h;
  }

  /**
   * Checkpoint 1 after two rows; rows logged after it (window 0 at 7, window 2 at 9) and a second
   * checkpoint that is never restored; then a restore from checkpoint 1, which sends other rows,
   * and the end of input.
   */
  private static List<LedgerEntry> restoredRun(RunDir dir) throws Exception {
    OperatorSubtaskState first;
    try (var h = harness(dir, null)) {
      h.processElement(row(0, 5), 0);
      h.processElement(row(1, 4), 0);
      first = h.snapshot(1, 1);
      h.processElement(row(0, 7), 0);
      h.processElement(row(2, 9), 0);
      h.snapshot(2, 2);
      assertThat(LedgerFiles.readLive(dir)).as("before the failure").containsExactly(row(0, 7), row(1, 4), row(2, 9));
    }
    try (var h = harness(dir, first)) {
      assertThat(LedgerFiles.readLive(dir)).as("restored: what followed checkpoint 1 is gone")
          .containsExactly(row(0, 5), row(1, 4));
      h.processElement(row(0, 6), 0);
      h.snapshot(3, 3);
      h.processElement(row(1, 10), 0);
      h.endInput();
    }
    return LedgerFiles.readLive(dir);
  }

  @Test
  void aLocalLogIsTruncatedToTheCheckpointOnRestore() throws Exception {
    RunDir dir = RunDir.of(tmp.resolve("run"));
    List<LedgerEntry> rows = restoredRun(dir);
    assertThat(rows).containsExactly(row(0, 6), row(1, 10));
    assertThat(dir.files(LedgerFiles.SEGMENTS)).isEmpty();
    assertThat(dir.readString(LedgerFiles.JSONL).lines()).hasSize(4); // two before, one, one at the end
  }

  @Test
  void onAnObjectStoreTheLogIsSegmentsAndARestoreDeletesThoseAfterTheCheckpoint() throws Exception {
    RunDir dir = RunDir.of(ObjectStoreEmulator.SCHEME + "://" + bucket + "/runs/x/ledger/web");
    int refusedBefore = ObjectStoreEmulator.refusals().size();
    List<LedgerEntry> rows = restoredRun(dir);
    assertThat(rows).containsExactly(row(0, 6), row(1, 10));
    assertThat(dir.exists(LedgerFiles.JSONL)).isFalse();
    // segment 0 at checkpoint 1; segment 1 (checkpoint 2) deleted by the restore and written
    // anew at checkpoint 3; segment 2 flushed when the input ended
    assertThat(dir.files(LedgerFiles.SEGMENTS))
        .containsExactly(LedgerFiles.segmentName(0), LedgerFiles.segmentName(1), LedgerFiles.segmentName(2));
    assertThat(dir.readString(LedgerFiles.SEGMENTS + "/" + LedgerFiles.segmentName(1))).contains("\"sent\":6")
        .doesNotContain("\"sent\":9");
    assertThat(LedgerFiles.read(dir)).as("ledger.csv").containsExactly(row(0, 6), row(1, 10));
    assertThat(dir.readString(RunSummary.FILE)).contains("web");
    assertThat(ObjectStoreEmulator.refusals().subList(refusedBefore, ObjectStoreEmulator.refusals().size()))
        .as("nothing asked of the store that it refuses").isEmpty();
  }

  @Test
  void readersMergeSegmentsInTheOrderOfTheirNumbers() throws Exception {
    RunDir dir = RunDir.of(ObjectStoreEmulator.SCHEME + "://" + bucket + "/runs/y");
    String zone = "UTC";
    // numbers sort as numbers (fixed width), whatever the order they were written in
    dir.create(LedgerFiles.SEGMENTS + "/" + LedgerFiles.segmentName(10),
        (LedgerFiles.jsonRow(row(0, 8), java.time.ZoneId.of(zone)) + "\n").getBytes());
    dir.create(LedgerFiles.SEGMENTS + "/" + LedgerFiles.segmentName(9),
        (LedgerFiles.jsonRow(row(0, 3), java.time.ZoneId.of(zone)) + "\n"
            + LedgerFiles.jsonRow(row(1, 2), java.time.ZoneId.of(zone)) + "\n").getBytes());
    dir.create(LedgerFiles.SEGMENTS + "/notes.txt", "not a segment".getBytes());
    assertThat(LedgerFiles.readLive(dir)).containsExactly(row(0, 8), row(1, 2));
    assertThat(LedgerFiles.read(dir)).containsExactly(row(0, 8), row(1, 2));
    assertThat(LedgerFiles.segmentNumber("notes.txt")).isEqualTo(-1);
    // a file system that shows a file while it is written (HDFS) may show a segment's last line
    // unfinished: a live read leaves it for the next read
    String full = LedgerFiles.jsonRow(row(1, 9), java.time.ZoneId.of(zone));
    dir.create(LedgerFiles.SEGMENTS + "/" + LedgerFiles.segmentName(11), full.substring(0, 20).getBytes());
    assertThat(LedgerFiles.readLive(dir)).containsExactly(row(0, 8), row(1, 2));
  }
}
