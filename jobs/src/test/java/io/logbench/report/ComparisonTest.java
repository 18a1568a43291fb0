package io.logbench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.report.ReportDocument.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 004's table from run directories' files: with and without the searches' timings, whether
 * each backend's answers were exact, the servers' settings, and several runs in one table.
 */
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
    assertThat(os.ingest().ingestSeconds()).isEqualTo(61.2);
    assertThat(os.ingest().storedBytes()).isEqualTo(98_000_000L);
    assertThat(os.ingest().bytesPerLine()).isEqualTo(136.74);
    assertThat(os.ingest().visibleP95Ms()).isEqualTo(1400.0);
    assertThat(os.losses().verdict()).isEqualTo("not verified");
    assertThat(os.losses().lost()).isNull();
    assertThat(os.answers()).isEqualTo("-");
    assertThat(os.label()).isEqualTo("os");
    String text = c.text("r");
    assertThat(text).contains(
        "os                           opensearch    1 min 01 s       11,711    98.0 MB    136.7     79.7"
            + "          812.5/1400.0         -           -  -\n",
        "ELK (seed 004, by hand)                    10 h 00 min       19,798   100.0 GB    140.3                    "
            + "                                   not checked\n",
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

  /** queries.csv as query writes it: its columns, one row per backend and search. */
  private static String queries(String... rows) {
    return String.join("\n", "backend,language,search,key,scope,bucket,from,to,buckets,cells,wrong_cells,status,runs,"
        + "cold_ms,median_ms,worst_ms,requests,query,error", String.join("\n", rows), "");
  }

  private static String search(String backend, String search, long cells, long wrong, String status, double cold,
      double median, double worst) {
    return String.join(",", backend, "lang", search, search.substring(0, search.indexOf('-')), "day", "1h",
        "2021-05-02T00:00:00-03:00", "2021-05-03T00:00:00-03:00", "24", Long.toString(cells), Long.toString(wrong),
        status, "5", Double.toString(cold), Double.toString(median), Double.toString(worst), "5", "\"q\"",
        status.equals("FAILED") ? "timed out" : "");
  }

  @Test
  void eachSearchShowsColdMedianAndWorstAndEachBackendWhetherItsAnswersWereExact() throws Exception {
    Files.writeString(dir.resolve("ingest.csv"), INGEST);
    Files.writeString(dir.resolve("queries.csv"), queries(
        search("os", "status-day-1h", 144, 0, "OK", 80.4, 12.5, 20.0),
        search("os", "path-day-30s", 864_000, 0, "OK", 9_000.0, 4_100.6, 4_900.0),
        search("null", "status-day-1h", 144, 3, "WRONG", 60.0, 30.0, 35.0),
        search("null", "path-day-30s", 864_000, 0, "FAILED", 600_000.0, 0.0, 0.0)));
    Comparison c = Comparison.of(RunData.read(dir, null));
    assertThat(c.searches()).containsExactly("status-day-1h", "path-day-30s");
    assertThat(c.timings().get("os").get("path-day-30s"))
        .isEqualTo(new Comparison.Timing(9_000.0, 4_100.6, 4_900.0, "OK", 0, 864_000));
    assertThat(c.rows()).extracting(Comparison.Row::answers).containsExactly("2 of 2 searches exact",
        "0 of 2 searches exact; status-day-1h WRONG (3 of 144 cells); path-day-30s FAILED");
    assertThat(c.text("r")).contains("searches, ms cold/median/worst (queries.csv):\n",
        "backend                        status-day-1h        path-day-30s\n",
        "os                                  80/13/20   9,000/4,101/4,900\n",
        "null                          60/30/35 WRONG  600,000/0/0 FAILED\n",
        "  2 of 2 searches exact\n")
        .doesNotContain("No search timings");
    Table q = (Table) c.section("p-").blocks().stream()
        .filter(b -> b instanceof Table t && t.id().equals("p-comparison-searches")).findFirst().orElseThrow();
    assertThat(q.columns()).extracting(ReportDocument.Column::name).containsExactly("backend",
        "status-day-1h cold ms", "status-day-1h median ms", "status-day-1h worst ms",
        "path-day-30s cold ms", "path-day-30s median ms", "path-day-30s worst ms");
    assertThat(q.rows().get(0)).containsExactly("os", 80.4, 12.5, 20.0, 9_000.0, 4_100.6, 4_900.0);
  }

  @Test
  void severalRunsMakeOneTableWithTheirServersSettings() throws Exception {
    Path alone = dir.resolve("opensearch-alone");
    Files.createDirectories(alone);
    Files.writeString(alone.resolve("ingest.csv"), INGEST);
    Files.writeString(alone.resolve("servers.csv"), String.join("\n", "backend,setting,value",
        "os,heap,-Xms4g -Xmx4g", "os,index,\"1 shard, 0 replicas, refresh_interval 30s\"", "loki,heap,-Xms4g -Xmx4g",
        ""));
    Path loki = dir.resolve("loki");
    Files.createDirectories(loki);
    Files.writeString(loki.resolve("ingest.csv"), String.join("\n", INGEST.lines().findFirst().orElseThrow(),
        "loki,loki,716707,50.0,52.8,13367.0,12300000,17.4,79.7,100,8,8,0,0,1097.7,1988.7,1988.7,1802.2,2699.7,"
            + "2699.7,read after a flush,", ""));
    Files.writeString(loki.resolve("servers.csv"), String.join("\n", "backend,setting,value",
        "loki,heap,-Xms4g -Xmx4g", "os,heap,-Xmx1g", ""));
    Files.writeString(loki.resolve("queries.csv"), queries(search("loki", "status-day-1h", 144, 0, "OK", 900.0, 700.0,
        750.0)));
    Comparison c = Comparison.of(List.of(RunData.read(alone, null), RunData.read(loki, null)));
    String first = "opensearch-alone";
    assertThat(c.rows()).extracting(Comparison.Row::label).containsExactly(first + "/os", first + "/null",
        "loki/loki");
    assertThat(c.timings()).containsOnlyKeys("loki/loki");
    assertThat(c.settings()).startsWith(new Comparison.Setting(first, "os", "heap", "-Xms4g -Xmx4g"),
        new Comparison.Setting(first, "os", "index", "1 shard, 0 replicas, refresh_interval 30s")).hasSize(5);
    assertThat(c.text("a, b")).startsWith("runs a, b\n").contains(
        "opensearch-alone/os          opensearch    1 min 01 s       11,711    98.0 MB    136.7     79.7",
        "loki/loki                    loki              52.8 s       13,367    12.3 MB     17.4     79.7"
            + "         1097.7/1988.7         -           -  1 of 1 searches exact\n",
        "server settings (servers.csv):\n  os heap: -Xms4g -Xmx4g (run opensearch-alone)\n"
            + "  os index: 1 shard, 0 replicas, refresh_interval 30s (run opensearch-alone)\n"
            + "  loki heap: -Xms4g -Xmx4g (runs opensearch-alone, loki)\n  os heap: -Xmx1g (run loki)\n",
        "note: Run " + first + ": No search timings: queries.csv is absent;",
        "note: backend " + first + "/null: the discard backend reports no stored size.");
    Table s = (Table) c.section("").blocks().stream()
        .filter(b -> b instanceof Table t && t.id().equals("comparison-settings")).findFirst().orElseThrow();
    assertThat(s.rows()).startsWith(List.of(first + "/os", "heap", "-Xms4g -Xmx4g"),
        List.of(first + "/os", "index", "1 shard, 0 replicas, refresh_interval 30s")).hasSize(5);
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
