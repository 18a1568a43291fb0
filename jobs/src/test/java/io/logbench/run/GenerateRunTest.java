package io.logbench.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.job.BackendSummary;
import io.logbench.job.GenerateJob;
import io.logbench.schedule.ConstantRateSchedule;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome.WindowTally;
import io.logbench.sink.DeliverySettings.Mode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-backend totals generate writes to summary.csv. */
class GenerateRunTest {

  private static BatchOutcome acked(long batch, long latencyMs, long serviceMs) {
    return new BatchOutcome("loki", batch, batch * 10, 10, Status.ACKED, 0, 1, batch * 1_000_000,
        latencyMs * 1_000_000, serviceMs * 1_000_000, List.of(new WindowTally(0, 10, 10, Map.of())));
  }

  @Test
  void summaryCsvGivesLatencyFromScheduleAndTheRequestsOwnTimeApart() {
    BackendSummary s = new BackendSummary("loki", Mode.LOAD_TEST, 1_000, new ConstantRateSchedule(100, 1_000), 0);
    // 100 batches: late ones waited for their send (latency from schedule 1,000 to 1,099 ms), yet each
    // request took 5 ms but the last ones, 40 ms
    for (int i = 0; i < 100; i++) {
      s.add(acked(i, 1_000 + i, i < 90 ? 5 : 40));
    }
    String csv = GenerateRun.summaryCsv(new GenerateJob.Result(List.of(s), List.of(), 0));

    List<String> lines = csv.lines().toList();
    assertThat(lines).hasSize(2);
    List<String> header = List.of(lines.get(0).split(",", -1));
    List<String> row = List.of(lines.get(1).split(",", -1));
    assertThat(row).hasSameSizeAs(header);
    Map<String, String> cell = new HashMap<>();
    for (int i = 0; i < header.size(); i++) {
      cell.put(header.get(i), row.get(i));
    }
    assertThat(cell).containsEntry("backend", "loki").containsEntry("acked", "1000").containsEntry("requests", "100");
    // from the schedule: the nearest-rank percentile, to within the histogram's 1/128
    assertThat(Double.parseDouble(cell.get("p50_ms"))).isBetween(1_049.0, 1_049.0 * 1.008);
    assertThat(Double.parseDouble(cell.get("p95_ms"))).isBetween(1_094.0, 1_094.0 * 1.008);
    // the request alone: p50 5 ms, p95 and p99 among the 40 ms ones
    assertThat(Double.parseDouble(cell.get("request_p50_ms"))).isBetween(5.0, 5.0 * 1.008);
    assertThat(Double.parseDouble(cell.get("request_p95_ms"))).isBetween(40.0, 40.0 * 1.008);
    assertThat(Double.parseDouble(cell.get("request_p99_ms"))).isBetween(40.0, 40.0 * 1.008);
  }
}
