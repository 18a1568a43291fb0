package io.logbench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.report.ReportDocument.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Seed 004's table from a run directory's files, with and without the searches' timings. */
class ComparisonTest {

  @TempDir Path dir;

  private static final String INGEST = String.join("\n",
      "backend,kind,acked_lines,ack_s,ingest_s,lines_per_s,stored_bytes,bytes_per_line,raw_bytes_per_line,"
          + "sample_every,sampled,visible,not_visible,poll_errors,visible_from_ack_p50_ms,visible_from_ack_p95_ms,"
          + "visible_from_ack_max_ms,visible_from_schedule_p50_ms,visible_from_schedule_p95_ms,"
          + "visible_from_schedule_max_ms,stored_source,notes",
      "os,opensearch,716707,59.9,61.2,11710.9,98000000,136.74,79.7,100,72,72,0,0,812.5,1400.0,1650.2,850.1,"
          + "1500.0,1700.0,\"index, every copy\",",
      "null,discard,716707,59.8,,,,,79.7,,,,,,,,,,,,,\"the discard backend reports no stored size\"",
      "");

  @Test
  void theTableHasEveryFigureAndTheSeedsRowsAndSaysWhatIsMissing() throws Exception {
    Files.writeString(dir.resolve("ingest.csv"), INGEST);
    Comparison c = Comparison.of(RunData.read(dir, null));
    assertThat(c.rows()).extracting(Comparison.Row::backend).containsExactly("os", "null");
    Comparison.Row os = c.rows().get(0);
    assertThat(os.ingestSeconds()).isEqualTo(61.2);
    assertThat(os.storedBytes()).isEqualTo(98_000_000L);
    assertThat(os.bytesPerLine()).isEqualTo(136.74);
    assertThat(os.visibleP95Ms()).isEqualTo(1400.0);
    assertThat(os.verdict()).isEqualTo("not verified");
    assertThat(os.lost()).isNull();
    String text = c.text("r");
    assertThat(text).contains(
        "os                           opensearch    1 min 01 s       11,711    98.0 MB    136.7     79.7"
            + "          812.5/1400.0         -           -",
        "ELK (seed 004, by hand)                    10 h 00 min       19,798   100.0 GB    140.3",
        "Splunk (seed 004, by hand)                 2 h 20 min       84,850    40.0 GB     56.1",
        "Loki (seed 004, by hand)                   6 h 00 min       32,997     9.0 GB     12.6",
        "note: No search timings: queries.csv is absent; run logbench query with this run file and --run-dir to"
            + " add them.",
        "note: No losses: verify has not run here",
        "note: backend null: the discard backend reports no stored size.");
    Table t = (Table) c.section("").blocks().stream().filter(b -> b instanceof Table).findFirst().orElseThrow();
    assertThat(t.rows()).hasSize(2 + 3);
    assertThat(t.rows().get(0)).containsSequence("os", "opensearch", "1 min 01 s", 11711.0, 98_000_000L, 136.7, 79.7);
  }

  @Test
  void searchMediansComeFromQueriesCsvPerSearchAndBackend() throws Exception {
    Files.writeString(dir.resolve("ingest.csv"), INGEST);
    Files.writeString(dir.resolve("queries.csv"), String.join("\n",
        "backend,search,range,bucket,runs,median_ms,worst_ms,cold_ms,cells_wrong",
        "os,count by status,day,1h,5,12.5,20,80,0",
        "os,count by status,month,1h,5,410,500,900,0",
        "loki,count by status,day,1h,5,30,35,60,0",
        ""));
    Comparison c = Comparison.of(RunData.read(dir, null));
    assertThat(c.searches()).containsExactly("count by status (day, 1h)", "count by status (month, 1h)");
    assertThat(c.medians().get("os")).containsEntry("count by status (month, 1h)", 410.0);
    assertThat(c.text("r")).contains("search medians, ms (queries.csv):",
        "count by status (day, 1h)                              12.5           30.0",
        "count by status (month, 1h)                           410.0              -")
        .doesNotContain("No search timings");
    assertThat(c.section("p-").blocks()).anyMatch(b -> b instanceof Table q && q.id().equals("p-comparison-searches")
        && q.rows().size() == 2);
  }

  @Test
  void aRunDirectoryWithNothingYetSaysSo() {
    Comparison c = Comparison.of(RunData.read(dir, null));
    assertThat(c.rows()).isEmpty();
    assertThat(c.notes()).contains("No ingest figures: ingest.csv is absent (generate has not finished here, or an"
        + " older logbench ran it).");
    assertThat(Comparison.duration(59.94)).isEqualTo("59.9 s");
    assertThat(Comparison.duration(3_600.0 * 10)).isEqualTo("10 h 00 min");
    assertThat(Comparison.bytes(999L)).isEqualTo("999 B");
    assertThat(List.of(Comparison.SEED_004.get(0).bytesPerLine())).first().satisfies(b -> assertThat(b)
        .isBetween(140.0, 140.5));
  }
}
