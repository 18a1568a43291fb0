package io.logbench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link CsvTable}: quoting, columns by name, extra and missing columns, bad files. */
class CsvTableTest {

  @Test
  void readsQuotedFieldsAndLooksColumnsUpByName() throws Exception {
    CsvTable t = CsvTable.parse("verdicts.csv", String.join("\n",
        "backend,window_start,status,observed,detail",
        "vl,2021-05-01T03:00:00Z,MISSING,5997,\"3 lost; also 10 not acknowledged: 400=6, 413=4\"",
        "",
        "loki,2021-05-01T03:00:00Z,OK,6000,",
        ""));
    assertThat(t.rows()).hasSize(2);
    assertThat(t.get(t.rows().get(0), "detail")).isEqualTo("3 lost; also 10 not acknowledged: 400=6, 413=4");
    assertThat(t.number(t.rows().get(0), "observed")).isEqualTo(5997.0);
    assertThat(t.number(t.rows().get(1), "detail")).isNull();
    assertThat(t.where("status", "OK")).hasSize(1);
    assertThat(t.distinct("backend")).containsExactly("vl", "loki");
  }

  @Test
  void anUnknownColumnIsKeptAndAMissingOneReadsEmpty() throws Exception {
    CsvTable t = CsvTable.parse("summary.csv", "backend,acked,resends_429\nloki,10,3\nvl,9\n");
    assertThat(t.header()).containsExactly("backend", "acked", "resends_429");
    assertThat(t.get(t.rows().get(0), "resends_429")).isEqualTo("3");
    assertThat(t.get(t.rows().get(1), "resends_429")).isEmpty();
    assertThat(t.get(t.rows().get(0), "no_such_column")).isEmpty();
    assertThat(t.has("p50_ms")).isFalse();
  }

  @Test
  void notANumberIsNull() {
    assertThat(CsvTable.number("NaN")).isNull();
    assertThat(CsvTable.number("-")).isNull();
    assertThat(CsvTable.number(" 12.5 ")).isEqualTo(12.5);
    assertThat(CsvTable.number("400=3")).isNull();
  }

  @Test
  void anEmptyFileHasNoHeaderAndSaysSo() {
    assertThatThrownBy(() -> CsvTable.parse("steps.csv", "")).isInstanceOf(IOException.class)
        .hasMessage("steps.csv has no header row.");
  }

  @Test
  void anUnclosedQuoteIsAnErrorNamingTheFile() {
    assertThatThrownBy(() -> CsvTable.parse("missing.csv", "a,b\n\"x,1\n")).isInstanceOf(IOException.class)
        .hasMessage("missing.csv is not a CSV file (line 3): Missing closing quote for value");
  }

  @Test
  void aLongFileKeepsItsFirstRowsAndCountsThemAll(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    StringBuilder csv = new StringBuilder("backend,window_start,kind,seq,count,note\n");
    for (int i = 0; i < 2500; i++) {
      csv.append(i % 2 == 0 ? "loki" : "vl").append(",2021-05-01T03:00:00Z,").append(i < 2000 ? "missing" : "duplicate")
          .append(',').append(i).append(",0,\n");
    }
    java.nio.file.Path file = dir.resolve("missing.csv");
    java.nio.file.Files.writeString(file, csv);
    CsvTable t = CsvTable.read(file, 100, List.of("backend", "kind"));
    assertThat(t.rows()).hasSize(100);
    assertThat(t.get(t.rows().get(99), "seq")).isEqualTo("99");
    assertThat(t.totalRows()).isEqualTo(2500);
    assertThat(t.counts()).containsExactly(
        java.util.Map.entry(List.of("loki", "missing"), 1000L), java.util.Map.entry(List.of("vl", "missing"), 1000L),
        java.util.Map.entry(List.of("loki", "duplicate"), 250L), java.util.Map.entry(List.of("vl", "duplicate"), 250L));
  }

  @Test
  void rowsAreFittedToTheHeader() {
    CsvTable t = new CsvTable("x.csv", List.of("a", "b"), List.of(List.of("1", "2", "3"), List.of("4")));
    assertThat(t.rows()).containsExactly(List.of("1", "2"), List.of("4", ""));
  }
}
