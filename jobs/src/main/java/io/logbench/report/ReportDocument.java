package io.logbench.report;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a report page shows, as data: sections of blocks (paragraphs, notices, tables, charts,
 * preformatted text). The page's script draws whatever blocks it is given, so a new section is
 * Java code that builds blocks, with no change to the page. Serialized to JSON into the page.
 *
 * @param title the page's title
 * @param subtitle one line under the title
 * @param zone the IANA zone (or {@code Etc/GMT+3}-like offset zone) the charts' time axes use
 * @param sections in page order
 */
public record ReportDocument(String title, String subtitle, String zone, List<Section> sections) {

  public ReportDocument {
    sections = List.copyOf(sections);
  }

  /** A titled part of the page; {@code id} is its anchor and prefixes its charts' ids. */
  public record Section(String id, String title, List<Block> blocks) {
    public Section {
      blocks = List.copyOf(blocks);
    }
  }

  /** One thing a section shows. */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonSubTypes({
    @JsonSubTypes.Type(value = Heading.class, name = "heading"),
    @JsonSubTypes.Type(value = Paragraph.class, name = "paragraph"),
    @JsonSubTypes.Type(value = Notice.class, name = "notice"),
    @JsonSubTypes.Type(value = Table.class, name = "table"),
    @JsonSubTypes.Type(value = Chart.class, name = "chart"),
    @JsonSubTypes.Type(value = Preformatted.class, name = "pre")
  })
  public sealed interface Block permits Heading, Paragraph, Notice, Table, Chart, Preformatted {}

  /** A sub-heading inside a section. */
  public record Heading(String text) implements Block {}

  /** A sentence or two of plain text. */
  public record Paragraph(String text) implements Block {}

  /**
   * Something the reader must notice: {@code info} (e.g. verify has not run yet), {@code warn},
   * or {@code bad} (lines lost).
   */
  public record Notice(String level, String text) implements Block {
    public static Notice info(String text) {
      return new Notice("info", text);
    }

    public static Notice warn(String text) {
      return new Notice("warn", text);
    }

    public static Notice bad(String text) {
      return new Notice("bad", text);
    }
  }

  /**
   * A table. Cells are strings, numbers or null (shown empty); a {@code status} column's cells get
   * the status's colour, and unknown statuses a neutral one.
   *
   * @param note a line under the table, e.g. that rows were left out; empty for none
   */
  public record Table(String id, String caption, List<Column> columns, List<List<Object>> rows, String note)
      implements Block {
    public Table {
      columns = List.copyOf(columns);
      rows = rows.stream().map(r -> (List<Object>) new ArrayList<>(r)).toList();
      note = note == null ? "" : note;
    }
  }

  /**
   * A column of a table.
   *
   * @param kind {@code text}, {@code number} (right-aligned, digits grouped), {@code status}
   */
  public record Column(String name, String kind) {
    public static Column text(String name) {
      return new Column(name, "text");
    }

    public static Column number(String name) {
      return new Column(name, "number");
    }

    public static Column status(String name) {
      return new Column(name, "status");
    }

    /** Columns named {@code names}, all of one kind. */
    public static List<Column> of(String kind, String... names) {
      return Arrays.stream(names).map(n -> new Column(n, kind)).toList();
    }
  }

  /**
   * A uPlot chart: one x array and one value array per series (null where a series has no point).
   * After drawing, the page records in {@code document.body.dataset.charts} how many points of
   * each series were drawn, keyed by {@code id}.
   *
   * @param xKind {@code time} (x in epoch seconds, shown in the document's zone) or {@code
   *     category} (x is 0..n-1 and {@code xLabels} names each)
   * @param xLabels names of the categories; empty for time
   * @param axes the y axes, by scale name; the first is on the left
   * @param note a line under the chart; empty for none
   */
  public record Chart(String id, String title, String xKind, String xLabel, List<String> xLabels,
      List<Double> x, List<Axis> axes, List<Series> series, String note) implements Block {
    public Chart {
      xLabels = List.copyOf(xLabels);
      x = List.copyOf(x);
      axes = List.copyOf(axes);
      series = List.copyOf(series);
      note = note == null ? "" : note;
    }
  }

  /**
   * A y axis.
   *
   * @param scale the name series refer to
   * @param side {@code left} or {@code right}
   * @param log whether the scale is logarithmic (latencies spanning decades)
   */
  public record Axis(String scale, String label, String side, boolean log) {}

  /**
   * A series of a chart.
   *
   * @param axis the scale of its y axis
   * @param style {@code line}, {@code dashed}, {@code band} (wide and pale, for a reference such as
   *     expected or target that other lines may cover) or {@code points} (markers only, for marks
   *     such as lost lines)
   * @param color a CSS colour
   * @param values one per x; null where there is no point
   */
  public record Series(String label, String axis, String style, String color, List<Double> values) {
    public Series {
      values = new ArrayList<>(values);
    }

    /** Points that are not null: what the page must draw. */
    public long points() {
      return values.stream().filter(v -> v != null).count();
    }
  }

  /** Text shown as it is, in a fixed-width font (e.g. a masked run file). */
  public record Preformatted(String caption, String text) implements Block {}
}
