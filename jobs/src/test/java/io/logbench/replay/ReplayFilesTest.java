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
}
