package io.logbench.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Leases and restore records in a run directory. */
class ReplayFilesTest {

  @TempDir Path dir;

  @Test
  void aLeaseIsEmptyUntilWrittenAndThenHoldsItsLastValue() throws IOException {
    ReplayFiles files = ReplayFiles.in(dir);
    try (ReplayFiles.Lease lease = files.lease("vl", 1)) {
      assertThat(lease.previous()).isEqualTo(ReplayFiles.Lease.NONE);
      lease.write(1_234_567);
      lease.write(42); // shorter numbers replace longer ones whole: the width is fixed
    }
    assertThat(Files.readString(files.leaseFile("vl", 1))).isEqualTo("0000000000000000042\n");
    try (ReplayFiles.Lease again = files.lease("vl", 1)) {
      assertThat(again.previous()).isEqualTo(42);
    }
  }

  @Test
  void aLeaseHoldsEveryDigitOfTheLargestIdAndItsFileIsWholeBeforeItIsClosed() throws IOException {
    ReplayFiles files = ReplayFiles.in(dir);
    try (ReplayFiles.Lease lease = files.lease("vl", 2)) {
      lease.write(Long.MAX_VALUE);
      // another reader sees the value while the lease is open (the mapping is the file's page)
      assertThat(Files.readString(files.leaseFile("vl", 2))).isEqualTo("9223372036854775807\n");
      lease.write(1_000_000_000L);
      assertThat(Files.readString(files.leaseFile("vl", 2))).isEqualTo("0000000001000000000\n");
      try (ReplayFiles.Lease reader = files.lease("vl", 2)) {
        assertThat(reader.previous()).isEqualTo(1_000_000_000L);
      }
    }
  }

  /** A lease file its mapping extended, before the first value came: nothing was emitted. */
  @Test
  void aLeaseOfZeroBytesOnlyMeansNoBatchWasEmitted() throws IOException {
    ReplayFiles files = ReplayFiles.in(dir);
    Files.createDirectories(files.leaseFile("vl", 3).getParent());
    Files.write(files.leaseFile("vl", 3), new byte[20]);
    try (ReplayFiles.Lease lease = files.lease("vl", 3)) {
      assertThat(lease.previous()).isEqualTo(ReplayFiles.Lease.NONE);
    }
  }

  @Test
  void anUnreadableLeaseMeansAnyBatchMayHaveBeenEmitted() throws IOException {
    ReplayFiles files = ReplayFiles.in(dir);
    Files.createDirectories(files.leaseFile("vl", 0).getParent());
    Files.writeString(files.leaseFile("vl", 0), "12x");
    try (ReplayFiles.Lease lease = files.lease("vl", 0)) {
      assertThat(lease.previous()).isEqualTo(ReplayFiles.Lease.UNKNOWN);
    }
  }

  @Test
  void recordsRoundTripAndAnUnfinishedLineWaitsForTheNextRead() throws IOException {
    ReplayFiles files = ReplayFiles.in(dir);
    assertThat(files.read()).isEmpty();
    RestoreRecord source = new RestoreRecord(RestoreRecord.SOURCE, 1_700_000_000_123L, "vl", 1, -1, 7,
        List.of(new RestoreRecord.StripePosition(1, 2, 41, 55)),
        List.of(ReplayedRange.stripe(41, 55, 2, 100, 0, 8_000)));
    RestoreRecord inFlight = new RestoreRecord(RestoreRecord.IN_FLIGHT, 1_700_000_000_200L, "vl", 0, 1, 7,
        List.of(), List.of(ReplayedRange.batch(38, 3_800, 100), ReplayedRange.batch(40, 4_000, 100)));
    files.append(source);
    files.append(inFlight);
    Files.writeString(files.restoresFile(), "{\"kind\":\"sou", StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.APPEND);

    assertThat(files.read()).containsExactly(source, inFlight);
    assertThat(source.batches()).isEqualTo(8); // 41, 43, ..., 55
    assertThat(source.lines()).isEqualTo(800);
    String line = Files.readAllLines(files.restoresFile()).get(0);
    assertThat(line).contains("\"kind\":\"source\"", "\"time\":\"2023-11-14T22:13:20.123Z\"", "\"attempt\":null",
        "\"checkpoint_id\":7", "\"restored_batch\":41", "\"lease_batch\":55", "\"first_seq\":4100",
        "\"batches\":8", "\"lines\":800");
  }

  @Test
  void aBrokenRecordNamesTheFileAndLine() throws IOException {
    ReplayFiles files = ReplayFiles.in(dir);
    Files.writeString(files.restoresFile(), "{\"kind\":\"source\"}\n");
    assertThatThrownBy(files::read).isInstanceOf(IOException.class)
        .hasMessageContaining("restores.jsonl line 1 is not a restore record");
  }

  @Test
  void clearRemovesAnEarlierRunsLeasesAndRecords() throws IOException {
    ReplayFiles files = ReplayFiles.in(dir);
    try (ReplayFiles.Lease lease = files.lease("vl", 0)) {
      lease.write(3);
    }
    files.append(new RestoreRecord(RestoreRecord.SOURCE, 1, "vl", 0, -1, -1, List.of(), List.of()));
    files.clear();
    assertThat(files.restoresFile()).doesNotExist();
    assertThat(dir.resolve(ReplayFiles.LEASES)).doesNotExist();
    files.clear(); // nothing to clear is fine
  }

  /** A run directory on the object store emulator: the layout of files written once. */
  private static io.logbench.rundir.RunDir objectStore(String bucket) {
    return io.logbench.rundir.RunDir.of(io.logbench.rundir.ObjectStoreEmulator.SCHEME + "://" + bucket + "/runs/r");
  }

  @Test
  void onAnObjectStoreEachLeaseExtensionIsANewFileAndTheHighestIsInForce() throws IOException {
    String bucket = "replay-files-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    io.logbench.rundir.RunDir run = objectStore(bucket);
    try {
      ReplayFiles files = ReplayFiles.in(run);
      int refusedBefore = io.logbench.rundir.ObjectStoreEmulator.refusals().size();
      try (ReplayFiles.Lease lease = files.lease("vl", 1)) {
        assertThat(lease.previous()).isEqualTo(ReplayFiles.Lease.NONE);
        lease.write(5);
        lease.write(42);
      }
      io.logbench.rundir.RunDir stripe = run.resolve("replay/vl/stripe-1");
      // the earlier extension is deleted once the next is written
      assertThat(stripe.files("")).containsExactly("00000000000000000042.lease");
      try (ReplayFiles.Lease again = files.lease("vl", 1)) {
        assertThat(again.previous()).isEqualTo(42);
        again.write(50); // a restored attempt extends beyond the lease in force
        assertThat(again.previous()).isEqualTo(50);
      }
      // a restore between a write and the delete of the one before still finds the highest
      stripe.create("00000000000000000007.lease", "7\n".getBytes(StandardCharsets.US_ASCII));
      try (ReplayFiles.Lease third = files.lease("vl", 1)) {
        assertThat(third.previous()).isEqualTo(50);
      }
      stripe.create("junk.lease", new byte[0]);
      try (ReplayFiles.Lease broken = files.lease("vl", 1)) {
        assertThat(broken.previous()).isEqualTo(ReplayFiles.Lease.UNKNOWN);
      }
      assertThat(io.logbench.rundir.ObjectStoreEmulator.refusals().subList(refusedBefore,
          io.logbench.rundir.ObjectStoreEmulator.refusals().size())).isEmpty();
    } finally {
      io.logbench.rundir.ObjectStoreEmulator.dropBucket(bucket);
    }
  }

  @Test
  void onAnObjectStoreEachRecordIsAFileReadInTheOrderWrittenAndClearRemovesThem() throws IOException {
    String bucket = "replay-files-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    io.logbench.rundir.RunDir run = objectStore(bucket);
    try {
      ReplayFiles files = ReplayFiles.in(run);
      assertThat(files.read()).isEmpty();
      RestoreRecord later = new RestoreRecord(RestoreRecord.IN_FLIGHT, 1_700_000_000_200L, "vl", 0, 1, 7,
          List.of(), List.of(ReplayedRange.batch(38, 3_800, 100)));
      RestoreRecord earlier = new RestoreRecord(RestoreRecord.SOURCE, 1_700_000_000_123L, "vl", 1, -1, 7,
          List.of(new RestoreRecord.StripePosition(1, 2, 41, 55)),
          List.of(ReplayedRange.stripe(41, 55, 2, 100, 0, 8_000)));
      files.append(later);
      files.append(earlier);
      assertThat(run.files(ReplayFiles.RESTORE_RECORDS)).hasSize(2);
      assertThat(files.read()).containsExactly(earlier, later);
      assertThat(files.restoresLocation()).isEqualTo(run.describe("restores"));
      try (ReplayFiles.Lease lease = files.lease("vl", 0)) {
        lease.write(3);
      }
      files.clear();
      assertThat(files.read()).isEmpty();
      assertThat(run.directories("")).isEmpty();
    } finally {
      io.logbench.rundir.ObjectStoreEmulator.dropBucket(bucket);
    }
  }
}
