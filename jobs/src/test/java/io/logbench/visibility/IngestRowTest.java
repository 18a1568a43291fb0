package io.logbench.visibility;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.sink.Footprint;
import io.logbench.sink.LatencyHistogram;
import org.junit.jupiter.api.Test;

/** The arithmetic of the ingest figures and their CSV row. */
class IngestRowTest {

  private static final long S = 1_000_000_000L;

  @Test
  void ingestTimeRateAndBytesPerLine() {
    LatencyHistogram ack = new LatencyHistogram();
    ack.record(1_500_000); // 1.5 s
    ack.record(500_000);
    LatencyHistogram sched = new LatencyHistogram();
    sched.record(2_000_000);
    VisibilityReport v = new VisibilityReport("os", 100, 3, 2, 1, 10, 1, ack, sched, 1_000_000, 60 * S, "");
    IngestRow r = new IngestRow("os", "opensearch", 1_000_000, 10 * S, 45 * S, 60 * S,
        new Footprint(250_000_000, "store, with a comma"), 151.25, v, "");
    assertThat(r.ackSeconds()).isEqualTo(35.0);
    assertThat(r.ingestSeconds()).isEqualTo(50.0);
    assertThat(r.linesPerSecond()).isEqualTo(20_000.0);
    assertThat(r.bytesPerLine()).isEqualTo(250.0);
    // p50 is the histogram's (within 1/64 of 500 ms); p95 and max are the exact maximum
    assertThat(r.csv()).isEqualTo("os,opensearch,1000000,35.000,50.000,20000.0,250000000,250.00,151.25,100,3,2,1,1,"
        + IngestRow.ms(ack.percentile(50)) + ",1500.0,1500.0,2000.0,2000.0,2000.0,\"store, with a comma\",");
    assertThat(ack.percentile(50)).isBetween(500_000L, 500_000L + 500_000L / 64);
    assertThat(IngestRow.CSV_HEADER.split(",")).hasSameSizeAs(r.csv().replace("\"store, with a comma\"", "x")
        .split(",", -1));
  }

  @Test
  void unknownFiguresAreEmptyCellsNotZeros() {
    IngestRow r = new IngestRow("d", "discard", 500, 10 * S, 12 * S, 0, null, Double.NaN, null,
        "visibility not polled: off");
    assertThat(r.ackSeconds()).isEqualTo(2.0);
    assertThat(r.ingestSeconds()).isNaN();
    assertThat(r.linesPerSecond()).isNaN();
    assertThat(r.bytesPerLine()).isNaN();
    assertThat(r.csv()).isEqualTo("d,discard,500,2.000,,,,,,,,,,,,,,,,,,visibility not polled: off");
  }

  @Test
  void nothingSentHasNoTimes() {
    IngestRow r = new IngestRow("d", "discard", 0, 0, 0, 0, new Footprint(10, "x"), 100, null, "");
    assertThat(r.ackSeconds()).isNaN();
    assertThat(r.ingestSeconds()).isNaN();
    assertThat(r.bytesPerLine()).isNaN(); // no line to divide by
  }
}
