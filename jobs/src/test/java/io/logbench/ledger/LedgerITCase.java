package io.logbench.ledger;

import static io.logbench.ledger.LedgerTest.EXPECTED;
import static io.logbench.ledger.LedgerTest.GRID;
import static io.logbench.ledger.LedgerTest.MIN;
import static io.logbench.ledger.LedgerTest.T0;
import static io.logbench.ledger.LedgerTest.ZONE;
import static io.logbench.ledger.Outcomes.acked;
import static io.logbench.ledger.Outcomes.outcome;
import static io.logbench.ledger.Outcomes.tally;
import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.job.FlinkEnvironments;
import io.logbench.ledger.stream.Ledger;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome;
import io.logbench.testing.LoopbackMiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The {@link Ledger} operators on a MiniCluster: synthetic outcomes, duplicates included. */
class LedgerITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      LoopbackMiniCluster.extension(4);

  @Test
  void duplicatesCountOnceAndEveryExpectedWindowHasARow(@TempDir Path runDir) throws Exception {
    List<BatchOutcome> outcomes =
        List.of(
            outcome("loki", 0, Status.ACKED, acked(T0, 3)),
            outcome("files", 0, Status.ACKED, acked(T0, 3)),
            outcome("loki", 1, Status.ACKED, acked(T0, 2), acked(T0 + MIN, 2)),
            // replays after a restore: the first outcome stands
            outcome("loki", 1, Status.FAILED, tally(T0, 2, 0, Map.of("409", 2)), tally(T0 + MIN, 2, 0, Map.of("409", 2))),
            outcome("loki", 0, Status.ACKED, acked(T0, 3)),
            outcome("files", 1, Status.ACKED, acked(T0, 2)),
            outcome("loki", 2, Status.FAILED, tally(T0 + MIN, 2, 0, Map.of("503", 2))),
            outcome("files", 1, Status.ACKED, acked(T0, 2)));

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(100);
    DataStream<BatchOutcome> input = env.fromData(outcomes, TypeInformation.of(BatchOutcome.class));
    Ledger.builder()
        .backends(List.of("loki", "files"))
        .grid(GRID)
        .expected(EXPECTED)
        .span(T0, T0 + 4 * MIN)
        .zone(ZONE)
        .runDir(runDir)
        .build()
        .attach(input);
    env.execute("ledger test");

    assertThat(Files.readString(runDir.resolve(LedgerFiles.CSV)))
        .isEqualTo(
            "backend,window_start,window_end,expected,sent,acked,rejected,rejected_reasons\n"
                + "files,2021-05-01T00:00:00-03:00,2021-05-01T00:01:00-03:00,5,5,5,0,\n"
                + "files,2021-05-01T00:01:00-03:00,2021-05-01T00:02:00-03:00,4,0,0,0,\n"
                + "files,2021-05-01T00:02:00-03:00,2021-05-01T00:03:00-03:00,2,0,0,0,\n"
                + "loki,2021-05-01T00:00:00-03:00,2021-05-01T00:01:00-03:00,5,5,5,0,\n"
                + "loki,2021-05-01T00:01:00-03:00,2021-05-01T00:02:00-03:00,4,4,2,2,503=2\n"
                + "loki,2021-05-01T00:02:00-03:00,2021-05-01T00:03:00-03:00,2,0,0,0,\n");
    List<LedgerEntry> fromCsv = LedgerFiles.read(runDir);
    assertThat(LedgerFiles.readJsonl(runDir.resolve(LedgerFiles.JSONL)))
        .as("the upsert log's last rows")
        .isEqualTo(fromCsv);
    assertThat(Files.readString(runDir.resolve(RunSummary.FILE))).isEqualTo(RunSummary.of(fromCsv).table());
    assertThat(RunSummary.of(fromCsv).backends())
        .containsExactly(
            new RunSummary.BackendTotals("files", 3, 11, 5, 5, Map.of()),
            new RunSummary.BackendTotals("loki", 3, 11, 9, 7, Map.of("503", 2L)));
  }
}
