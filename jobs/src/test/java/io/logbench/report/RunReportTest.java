package io.logbench.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.report.ReportDocument.Block;
import io.logbench.report.ReportDocument.Chart;
import io.logbench.report.ReportDocument.Section;
import io.logbench.report.ReportDocument.Series;
import io.logbench.report.ReportDocument.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's model and page from run directories written here in the shape generate and verify
 * write them: missing files, statuses and columns the report does not know, secrets, and names
 * that would break HTML.
 */
class RunReportTest {

  private static final long T0 = 1_619_838_000_000L; // 2021-05-01T03:00:00Z
  private static final long MINUTE = 60_000L;
  private static final Versions VERSIONS = new Versions("9.9.9", "2.2.1", "2.2.1", "1.6.30", "4.2.0");
  private static final String EVIL = "</script><script>alert(1)</script><!--";

  @TempDir Path dir;

  private Path runFile(String extra) throws Exception {
    Path f = dir.resolve("run.yaml");
    Files.writeString(f, String.join("\n",
        "name: unit",
        "zone: UTC",
        "backends:",
        "  - {kind: loki, url: 'http://127.0.0.1:3100'}",
        "  - kind: splunk",
        "    token: hunter2-inline-token",
        "    token_env: HEC_TOKEN",
        extra,
        ""));
    return f;
  }

  private Path generated(String backendB) throws Exception {
    return generated("run", backendB);
  }

  private Path generated(String name, String backendB) throws Exception {
    Path run = dir.resolve(name);
    Files.createDirectories(run);
    Files.writeString(run.resolve("run.json"), "{\"name\": \"unit\", \"config\": "
        + new ObjectMapper().writeValueAsString(runFile("").toString()) + ", \"runStartMillis\": " + T0
        + ", \"finishedMillis\": " + (T0 + 3 * MINUTE) + ", \"lines\": 36000, \"zone\": \"UTC\"}");
    LedgerFiles.writeCsv(run, List.of(
        new LedgerEntry("loki", T0, T0 + MINUTE, 6000, 6000, 6000, Map.of()),
        new LedgerEntry("loki", T0 + MINUTE, T0 + 2 * MINUTE, 6000, 6000, 6000, Map.of()),
        new LedgerEntry("loki", T0 + 2 * MINUTE, T0 + 3 * MINUTE, 6000, 6000, 5990, Map.of("400", 10L)),
        new LedgerEntry(backendB, T0, T0 + MINUTE, 6000, 6000, 6000, Map.of()),
        new LedgerEntry(backendB, T0 + MINUTE, T0 + 2 * MINUTE, 6000, 6000, 6000, Map.of()),
        new LedgerEntry(backendB, T0 + 2 * MINUTE, T0 + 3 * MINUTE, 6000, 6000, 6000, Map.of())),
        ZoneOffset.UTC);
    Files.writeString(run.resolve("summary.csv"), String.join("\n",
        "backend,mode,expected_lines,lines,acked,requests,p50_ms,p95_ms,p99_ms,max_ms,failures,resends_timeout",
        "loki,at-least-once,18000,18000,17990,361,12.5,40.0,80.0,120.0,400=10,4",
        "\"" + backendB.replace("\"", "\"\"") + "\",at-least-once,18000,18000,18000,360,2.0,3.0,4.0,5.0,,0",
        ""));
    return run;
  }

  private void verified(Path run, String backendB) throws Exception {
    String b = "\"" + backendB + "\"";
    Files.writeString(run.resolve("verdicts.csv"), String.join("\n",
        "backend,window_start,window_end,status,expected,acked,observed,detail,replayed_lines",
        "loki,2021-05-01T03:00:00Z,2021-05-01T03:01:00Z,OK,6000,6000,6000,,0",
        "loki,2021-05-01T03:01:00Z,2021-05-01T03:02:00Z,MISSING,6000,6000,5997,3 acknowledged line(s) not found,0",
        "loki,2021-05-01T03:02:00Z,2021-05-01T03:03:00Z,REJECTED,6000,5990,5990,\"10 line(s) not acknowledged: 400=10\",0",
        b + ",2021-05-01T03:00:00Z,2021-05-01T03:01:00Z,OK,6000,6000,6000,,0",
        b + ",2021-05-01T03:01:00Z,2021-05-01T03:02:00Z,SUSPECT,6000,6000,6050,a status of a later verify,50",
        b + ",2021-05-01T03:02:00Z,2021-05-01T03:03:00Z,DUPLICATE,6000,6000,6002,2 line(s) more than acknowledged,0",
        ""));
    Files.writeString(run.resolve("missing.csv"), String.join("\n",
        "backend,window_start,kind,seq,count,note",
        "loki,2021-05-01T03:01:00Z,missing,6001,0,",
        "loki,2021-05-01T03:01:00Z,missing,6002,0,",
        "loki,2021-05-01T03:01:00Z,missing,6003,0,",
        b + ",2021-05-01T03:02:00Z,duplicate,12000,2,",
        ""));
    Files.writeString(run.resolve("verify-stats.csv"), String.join("\n",
        "backend,windows_checked,queries,query_ms,skipped", "loki,3,4,100.0,", b + ",3,2,10.0,", ""));
  }

  private static Section section(ReportDocument doc, String id) {
    return doc.sections().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow();
  }

  private static <T extends Block> T block(Section s, Class<T> type, String id) {
    return s.blocks().stream().filter(type::isInstance).map(type::cast)
        .filter(b -> id == null || (b instanceof Table t ? t.id() : b instanceof Chart c ? c.id() : "").equals(id))
        .findFirst().orElseThrow();
  }

  private static Series series(Chart c, String label) {
    return c.series().stream().filter(s -> s.label().equals(label)).findFirst().orElseThrow();
  }

  @Test
  void afterGenerateAloneTheReportSaysThereAreNoVerdictsYet() throws Exception {
    Path run = generated("vl");
    RunData data = RunData.read(run, null);
    assertThat(data.verified()).isFalse();
    assertThat(data.files()).anyMatch(f -> f.name().equals("verdicts.csv") && f.state().equals("absent")
        && f.detail().equals("verify has not run on this run directory yet"));
    ReportDocument doc = RunReport.document(data, VERSIONS);
    assertThat(section(doc, "overview").blocks()).anyMatch(b -> b instanceof ReportDocument.Notice n
        && n.text().startsWith("No verdicts yet"));
    Chart loki = block(section(doc, "windows"), Chart.class, "windows-loki");
    assertThat(loki.series()).extracting(Series::label).containsExactly("expected", "acked", "not acked");
    assertThat(series(loki, "not acked").values()).containsExactly(null, null, 10.0);
    Table overview = block(section(doc, "overview"), Table.class, "overview-table");
    assertThat(overview.rows().get(0)).containsSequence("loki", "at-least-once", 18000L, 17990L, 10L, 3);
    assertThat(overview.rows().get(0)).contains("not verified yet", 99.9); // 17,990 lines in 180 s
  }

  @Test
  void anUnknownStatusAndAnUnknownColumnAreShownAsTheyAre() throws Exception {
    Path run = generated("vl");
    verified(run, "vl");
    ReportDocument doc = RunReport.document(RunData.read(run, null), VERSIONS);

    Table byStatus = block(section(doc, "verdicts"), Table.class, "verdict-table");
    assertThat(byStatus.columns()).extracting(ReportDocument.Column::name).containsExactly("backend", "windows",
        "OK", "MISSING", "DUPLICATE", "REPLAYED", "REJECTED", "PENDING", "SUSPECT", "lost lines",
        "duplicated lines", "not acked lines");
    assertThat(byStatus.rows()).containsExactly(
        List.of("loki", 3L, 1L, 1L, 0L, 0L, 1L, 0L, 0L, 3L, 0L, 10L),
        List.of("vl", 3L, 1L, 0L, 1L, 0L, 0L, 0L, 1L, 0L, 2L, 0L));
    Table notOk = block(section(doc, "verdicts"), Table.class, "not-ok-windows");
    assertThat(notOk.columns()).extracting(ReportDocument.Column::name).contains("replayed_lines");
    assertThat(notOk.rows()).hasSize(4);

    Chart vl = block(section(doc, "windows"), Chart.class, "windows-vl");
    assertThat(series(vl, "SUSPECT (observed - acked)").values()).containsExactly(null, 50.0, null);
    assertThat(series(vl, "duplicated").values()).containsExactly(null, null, 2.0);
    Chart loki = block(section(doc, "windows"), Chart.class, "windows-loki");
    assertThat(series(loki, "lost").values()).containsExactly(null, 3.0, null);
    assertThat(series(loki, "observed").values()).containsExactly(6000.0, 5997.0, 5990.0);

    Table summary = block(section(doc, "latency"), Table.class, "summary-table");
    assertThat(summary.columns()).extracting(ReportDocument.Column::name).endsWith("failures", "resends_timeout");
    Chart latency = block(section(doc, "latency"), Chart.class, "latency-profile");
    assertThat(latency.xLabels()).containsExactly("p50", "p95", "p99", "max");
    assertThat(series(latency, "loki").values()).containsExactly(12.5, 40.0, 80.0, 120.0);

    Table failures = block(section(doc, "failures"), Table.class, "failures-table");
    assertThat(failures.rows()).containsExactly(List.of("loki", "400", 10L));
    Table queries = block(section(doc, "queries"), Table.class, "queries-table");
    assertThat(queries.rows().get(0)).containsExactly("loki", 3L, 4L, 100L, 25.0, "");
    Table ids = block(section(doc, "missing"), Table.class, "missing-ids");
    assertThat(ids.rows()).extracting(r -> r.get(3)).containsExactly("6001", "6002", "6003", "12000");
  }

  @Test
  void theSecretOfTheRunFileAndAnEvilBackendNameNeverReachThePageAsTheyAre() throws Exception {
    Path run = generated(EVIL);
    verified(run, EVIL.replace("\"", "\"\""));
    String html = HtmlPage.render(RunReport.document(RunData.read(run, null), VERSIONS), VERSIONS);

    assertThat(html).doesNotContain("hunter2-inline-token").contains("token_env: HEC_TOKEN");
    assertThat(html).doesNotContain(EVIL);
    String open = "<script type=\"application/json\" id=\"report-data\">";
    int from = html.indexOf(open) + open.length();
    String block = html.substring(from, html.indexOf("</script>", from));
    JsonNode doc = new ObjectMapper().readTree(block);
    assertThat(doc.path("title").asText()).isEqualTo("logbench run unit");
    assertThat(block).contains("\\u003C/script\\u003E\\u003Cscript\\u003Ealert(1)");
    assertThat(doc.toString()).contains(EVIL); // the name itself survives, as data
    // the page is one file: no script, stylesheet or image is fetched
    assertThat(html).doesNotContain("<script src").doesNotContain("<link").doesNotContain("<img");
    assertThat(html).contains("default-src 'none'");
    assertThat(html).contains("uPlot"); // inlined, from the webjar
  }

  @Test
  void aDirectoryWithNothingInItStillRendersAndSaysWhatIsMissing() throws Exception {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    RunData data = RunData.read(empty, null);
    assertThat(data.files()).allMatch(f -> f.state().equals("absent"));
    ReportDocument doc = RunReport.document(data, VERSIONS);
    assertThat(section(doc, "overview").blocks()).anyMatch(b -> b instanceof ReportDocument.Notice n
        && n.text().startsWith("This directory holds no run.json and no ledger"));
    assertThat(HtmlPage.render(doc, VERSIONS)).contains("logbench run empty");
  }

  @Test
  void anUnreadableFileIsReportedNotFatal() throws Exception {
    Path run = generated("vl");
    Files.writeString(run.resolve("verdicts.csv"), "");
    Files.writeString(run.resolve("run.json"), "{not json");
    RunData data = RunData.read(run, runFile("").toAbsolutePath());
    assertThat(data.files()).anyMatch(f -> f.name().equals("verdicts.csv") && f.state().equals("unreadable")
        && f.detail().equals("verdicts.csv has no header row."));
    assertThat(data.files()).anyMatch(f -> f.name().equals("run.json") && f.state().equals("unreadable"));
    assertThat(data.runFile()).isNotNull(); // from --config, since run.json cannot say
    assertThat(RunReport.document(data, VERSIONS).sections()).isNotEmpty();
  }

  @Test
  void compareListsEveryMetricOfBothRunsWithTheDifference() throws Exception {
    Path a = generated("a", "vl");
    verified(a, "vl");
    Path b = generated("b", "vl");
    Files.writeString(b.resolve("summary.csv"), String.join("\n",
        "backend,mode,expected_lines,lines,acked,requests,p50_ms,p95_ms,p99_ms,max_ms,failures",
        "loki,at-least-once,18000,18000,17990,361,10.0,30.0,60.0,90.0,400=10",
        ""));
    List<CompareReport.Metric> m = CompareReport.metrics(RunData.read(a, null), RunData.read(b, null));
    assertThat(m).contains(
        new CompareReport.Metric("lost lines", "loki", 3.0, null, "lines"),
        new CompareReport.Metric("p50 latency", "loki", 12.5, 10.0, "ms"),
        new CompareReport.Metric("p50 latency", "vl", 2.0, null, "ms"),
        new CompareReport.Metric("mean count query", "loki", 25.0, null, "ms"),
        new CompareReport.Metric("acked lines", "loki", 17990.0, 17990.0, "lines"));
    ReportDocument doc = CompareReport.document(RunData.read(a, null), RunData.read(b, null), VERSIONS);
    Table t = block(section(doc, "compare"), Table.class, "compare-table");
    assertThat(t.rows()).contains(java.util.Arrays.asList("p50 latency", "loki", 12.5, 10.0, -2.5, "-20.0%", "ms"));
    assertThat(doc.sections()).extracting(Section::id).contains("a-overview", "b-overview", "a-windows");
    assertThat(section(doc, "compare").blocks()).anyMatch(x -> x instanceof ReportDocument.Notice n
        && n.text().startsWith("Run B has no verdicts yet"));
  }

  @Test
  void aLongDrillDownShowsItsFirstRowsAndCountsAll() throws Exception {
    Path run = generated("vl");
    verified(run, "vl");
    StringBuilder csv = new StringBuilder("backend,window_start,kind,seq,count,note\n");
    for (int i = 0; i < RunData.MISSING_ROWS_KEPT + 5; i++) {
      csv.append("loki,2021-05-01T03:01:00Z,missing,").append(6000 + i).append(",0,\n");
    }
    Files.writeString(run.resolve("missing.csv"), csv);
    ReportDocument doc = RunReport.document(RunData.read(run, null), VERSIONS);
    Table kinds = block(section(doc, "missing"), Table.class, "missing-kinds");
    assertThat(kinds.rows()).containsExactly(List.of("loki", "missing", (long) RunData.MISSING_ROWS_KEPT + 5));
    Table ids = block(section(doc, "missing"), Table.class, "missing-ids");
    assertThat(ids.rows()).hasSize(RunReport.MAX_ROWS);
    assertThat(ids.note()).isEqualTo("The first 500 of 10,005 rows; the others are in missing.csv.");
  }

  @Test
  void offsetZonesBecomeZonesABrowserKnows() {
    assertThat(RunReport.browserZone(java.time.ZoneId.of("America/Sao_Paulo"))).isEqualTo("America/Sao_Paulo");
    assertThat(RunReport.browserZone(ZoneOffset.ofHours(-3))).isEqualTo("Etc/GMT+3");
    assertThat(RunReport.browserZone(ZoneOffset.ofHours(5))).isEqualTo("Etc/GMT-5");
    assertThat(RunReport.browserZone(ZoneOffset.UTC)).isEqualTo("UTC");
    assertThat(RunReport.browserZone(ZoneOffset.ofHoursMinutes(5, 30))).isEqualTo("UTC");
  }
}
