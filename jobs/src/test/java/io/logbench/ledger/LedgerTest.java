package io.logbench.ledger;

import static io.logbench.ledger.Outcomes.acked;
import static io.logbench.ledger.Outcomes.outcome;
import static io.logbench.ledger.Outcomes.tally;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.ledger.stream.Ledger;
import io.logbench.ledger.stream.LedgerBook;
import io.logbench.schedule.ExpectedCounts;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.WindowGrid;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ledger's rules ({@link LedgerBook}) and its files, without Flink. */
class LedgerTest {

  static final ZoneId ZONE = ZoneId.of("America/Sao_Paulo");
  /** 2021-05-01T00:00-03:00. */
  static final long T0 = Instant.parse("2021-05-01T03:00:00Z").toEpochMilli();
  static final long MIN = 60_000;
  static final WindowGrid GRID = WindowGrid.aligned(MIN, ZONE, T0);
  /** 5 lines in window 0, 4 in window 1, 2 in window 2, none in window 3. */
  static final ExpectedCounts EXPECTED =
      new ExpectedCounts(
          new ArrayTimeline(
              T0 + 1, T0 + 2, T0 + 3, T0 + 59_000, T0 + 59_999,
              T0 + MIN, T0 + MIN + 10, T0 + MIN + 20, T0 + 2 * MIN - 1,
              T0 + 2 * MIN + 5, T0 + 2 * MIN + 6),
          0);

  private final LedgerBook book = new LedgerBook(GRID, EXPECTED);

  @Test
  void aReplayedOutcomeIsCountedOnceAndTheFirstWins() {
    assertThat(book.accept(outcome("loki", 7, Status.ACKED, acked(T0, 3)))).isTrue();
    // the replay after a restore answers differently; the first outcome stands
    assertThat(book.accept(outcome("loki", 7, Status.FAILED, tally(T0, 3, 0, Map.of("409", 3))))).isFalse();
    // the same batch id at another backend is another batch
    assertThat(book.accept(outcome("files", 7, Status.ACKED, acked(T0, 3)))).isTrue();

    assertThat(book.duplicates()).isEqualTo(1);
    assertThat(book.counted())
        .containsExactly(
            new LedgerEntry("files", T0, T0 + MIN, 5, 3, 3, Map.of()),
            new LedgerEntry("loki", T0, T0 + MIN, 5, 3, 3, Map.of()));
  }

  @Test
  void batchIdsFarApartAreTrackedInTheirOwnBlocks() {
    assertThat(book.accept(outcome("loki", 0, Status.ACKED, acked(T0, 1)))).isTrue();
    assertThat(book.accept(outcome("loki", 4096, Status.ACKED, acked(T0, 1)))).isTrue();
    assertThat(book.accept(outcome("loki", 4095, Status.ACKED, acked(T0, 1)))).isTrue();
    assertThat(book.accept(outcome("loki", 4096, Status.ACKED, acked(T0, 1)))).isFalse();
    assertThat(book.counted().get(0).acked()).isEqualTo(3);
  }

  @Test
  void batchesSpanningTwoWindowsAddToBoth() {
    book.accept(outcome("loki", 0, Status.ACKED, acked(T0, 3)));
    book.accept(outcome("loki", 1, Status.ACKED, acked(T0, 2), acked(T0 + MIN, 2)));
    book.accept(outcome("loki", 2, Status.ACKED, acked(T0 + MIN, 2)));

    assertThat(book.counted())
        .containsExactly(
            new LedgerEntry("loki", T0, T0 + MIN, 5, 5, 5, Map.of()),
            new LedgerEntry("loki", T0 + MIN, T0 + 2 * MIN, 4, 4, 4, Map.of()));
  }

  @Test
  void rejectedLinesAreSummedByReason() {
    book.accept(outcome("loki", 0, Status.PARTIAL, tally(T0, 3, 1, Map.of("400 timestamp too old", 2))));
    book.accept(
        outcome("loki", 1, Status.FAILED,
            tally(T0, 2, 0, Map.of("400 timestamp too old", 1, "503", 1)),
            tally(T0 + MIN, 1, 0, Map.of("503", 1))));

    List<LedgerEntry> rows = book.counted();
    assertThat(rows.get(0))
        .isEqualTo(new LedgerEntry("loki", T0, T0 + MIN, 5, 5, 1, Map.of("400 timestamp too old", 3L, "503", 1L)));
    assertThat(rows.get(0).rejectedTotal()).isEqualTo(4);
    assertThat(rows.get(1)).isEqualTo(new LedgerEntry("loki", T0 + MIN, T0 + 2 * MIN, 4, 1, 0, Map.of("503", 1L)));
  }

  @Test
  void linesOfAnAbortedBatchAreNotSentOnlyRejectedAsAborted() {
    book.accept(outcome("loki", 0, Status.ACKED, acked(T0, 2)));
    book.accept(outcome("loki", 1, Status.ABORTED, tally(T0, 3, 0, Map.of("aborted", 3))));
    LedgerEntry row = book.counted().get(0);
    assertThat(row).isEqualTo(new LedgerEntry("loki", T0, T0 + MIN, 5, 2, 2, Map.of("aborted", 3L)));
    assertThat(row.aborted()).isEqualTo(3);
    assertThat(row.ended()).isEqualTo(5);
  }

  @Test
  void windowsNoBatchReachedGetARowWithTheirExpectedCount() {
    book.accept(outcome("loki", 0, Status.ACKED, acked(T0, 5)));

    List<LedgerEntry> rows = book.entries(List.of("loki", "files"), T0, T0 + 4 * MIN);

    // window 3 expects nothing and got nothing: no row
    assertThat(rows)
        .containsExactly(
            LedgerEntry.empty("files", T0, T0 + MIN, 5),
            LedgerEntry.empty("files", T0 + MIN, T0 + 2 * MIN, 4),
            LedgerEntry.empty("files", T0 + 2 * MIN, T0 + 3 * MIN, 2),
            new LedgerEntry("loki", T0, T0 + MIN, 5, 5, 5, Map.of()),
            LedgerEntry.empty("loki", T0 + MIN, T0 + 2 * MIN, 4),
            LedgerEntry.empty("loki", T0 + 2 * MIN, T0 + 3 * MIN, 2));
  }

  @Test
  void csvRowsCarryIsoTimesInTheRunZoneAndEscapedReasons() {
    LedgerEntry e =
        new LedgerEntry("loki", T0, T0 + MIN, 5, 5, 1, Map.of("400 bad, \"odd\"; a=b 100%", 3L, "503", 1L));

    assertThat(LedgerFiles.csvRow(e, ZONE))
        .isEqualTo("loki,2021-05-01T00:00:00-03:00,2021-05-01T00:01:00-03:00,5,5,1,4,"
            + "\"400 bad, \"\"odd\"\"%3B a%3Db 100%25=3; 503=1\"");
  }

  @Test
  void csvAndJsonlRoundTrip(@TempDir Path dir) throws IOException {
    LedgerEntry a = new LedgerEntry("loki", T0, T0 + MIN, 5, 5, 1, Map.of("400 bad, \"odd\"; a=b 100%", 3L, "503", 1L));
    LedgerEntry b = LedgerEntry.empty("files", T0 + MIN, T0 + 2 * MIN, 4);

    Path jsonl = dir.resolve(LedgerFiles.JSONL);
    Files.writeString(jsonl,
        LedgerFiles.jsonRow(LedgerEntry.empty("loki", T0, T0 + MIN, 5), ZONE) + "\n"
            + LedgerFiles.jsonRow(b, ZONE) + "\n" + LedgerFiles.jsonRow(a, ZONE) + "\n");
    assertThat(LedgerFiles.read(dir)).as("last row of each key in the upsert log").containsExactly(b, a);

    LedgerFiles.writeCsv(dir, List.of(a, b), ZONE);
    assertThat(Files.readAllLines(dir.resolve(LedgerFiles.CSV)).get(0)).isEqualTo(LedgerFiles.CSV_HEADER);
    assertThat(LedgerFiles.read(dir)).as("the csv wins over the log").containsExactly(b, a);
  }

  @Test
  void readingADirectoryWithoutALedgerSaysSo(@TempDir Path dir) {
    assertThatThrownBy(() -> LedgerFiles.read(dir))
        .isInstanceOf(IOException.class)
        .hasMessage("No ledger in " + dir + ": neither ledger.csv nor ledger.jsonl nor ledger-log/ exists; was the run started with this directory?");
  }

  @Test
  void summaryAddsUpEachBackend() {
    RunSummary s =
        RunSummary.of(
            List.of(
                new LedgerEntry("loki", T0, T0 + MIN, 5, 5, 1, Map.of("503", 4L)),
                new LedgerEntry("loki", T0 + MIN, T0 + 2 * MIN, 4, 4, 3, Map.of("503", 1L)),
                LedgerEntry.empty("files", T0, T0 + MIN, 5)));

    assertThat(s.backends())
        .containsExactly(
            new RunSummary.BackendTotals("files", 1, 5, 0, 0, Map.of()),
            new RunSummary.BackendTotals("loki", 2, 9, 9, 4, Map.of("503", 5L)));
    assertThat(s.table())
        .isEqualTo(
            "backend   windows        expected            sent           acked        rejected\n"
                + "files           1               5               0               0               0\n"
                + "loki            2               9               9               4               5\n"
                + "loki rejected 5 lines: 503\n");
  }

  @Test
  void theBuilderNamesWhatIsMissing() {
    assertThatThrownBy(() -> Ledger.builder().grid(GRID).expected(EXPECTED).span(T0, T0 + MIN).zone(ZONE).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A ledger needs the names of the run's backends.");
    assertThatThrownBy(
            () -> Ledger.builder().backends(List.of("a", "a")).grid(GRID).expected(EXPECTED).span(T0, T0 + MIN).zone(ZONE).build())
        .hasMessage("Backend names must be unique in a ledger, but were [a, a].");
  }

  @Test
  void aJsonRowIsOneObjectWithItsWindowInTheRunsZone() {
    LedgerEntry e = new LedgerEntry("lo\"ki", T0, T0 + MIN, 10, 9, 5, Map.of("429", 3L, "a;b", 1L));
    assertThat(LedgerFiles.jsonRow(e, ZONE)).isEqualTo("{\"backend\":\"lo\\\"ki\","
        + "\"window_start\":\"2021-05-01T00:00:00-03:00\",\"window_end\":\"2021-05-01T00:01:00-03:00\","
        + "\"expected\":10,\"sent\":9,\"acked\":5,\"rejected\":4,\"rejected_reasons\":{\"429\":3,\"a;b\":1}}");
  }

  @Test
  void rowsAppendedTogetherAreEachRowAndANewline() {
    StringBuilder out = new StringBuilder("kept\n");
    LedgerFiles.JsonRows rows = new LedgerFiles.JsonRows(ZONE, out);
    StringBuilder expected = new StringBuilder("kept\n");
    // windows again, in turn and after others: the formatted bounds kept must be the right ones
    for (long w : new long[] {0, 0, 1, 0, 2, 3, 1, 1, 5}) {
      LedgerEntry e = new LedgerEntry("loki", T0 + w * MIN, T0 + (w + 1) * MIN, w, w, w,
          w % 2 == 0 ? Map.of() : Map.of("400", w));
      rows.append(e);
      expected.append(LedgerFiles.jsonRow(e, ZONE)).append('\n');
    }
    assertThat(out.toString()).isEqualTo(expected.toString());
  }
}
