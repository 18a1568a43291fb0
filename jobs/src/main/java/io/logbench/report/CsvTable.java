package io.logbench.report;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A CSV file of the run directory as its header and rows of strings (RFC 4180 quoting, read with
 * Jackson's CSV parser). Columns are looked up by name, so a file that gains columns later (resends
 * by cause, write-to-visible latency) still reads, and the report shows the extra columns as they
 * are.
 *
 * @param name the file's name, for messages and captions
 * @param header the column names, in file order
 * @param rows the data rows, each padded or cut to the header's width
 */
public record CsvTable(String name, List<String> header, List<List<String>> rows) {

  private static final CsvMapper CSV = new CsvMapper()
      .enable(CsvParser.Feature.WRAP_AS_ARRAY)
      .enable(CsvParser.Feature.SKIP_EMPTY_LINES);

  public CsvTable {
    header = List.copyOf(header);
    List<List<String>> fitted = new ArrayList<>(rows.size());
    for (List<String> r : rows) {
      List<String> row = new ArrayList<>(r.subList(0, Math.min(r.size(), header.size())));
      while (row.size() < header.size()) {
        row.add("");
      }
      fitted.add(List.copyOf(row));
    }
    rows = List.copyOf(fitted);
  }

  /** Reads {@code file}; its first row is the header. */
  public static CsvTable read(Path file) throws IOException {
    return parse(file.getFileName().toString(), Files.readString(file, StandardCharsets.UTF_8));
  }

  /**
   * Parses CSV text whose first row is the header.
   *
   * @throws IOException if the text is not CSV or has no header
   */
  public static CsvTable parse(String name, String text) throws IOException {
    List<List<String>> all = new ArrayList<>();
    try (MappingIterator<String[]> it =
        CSV.readerFor(String[].class).with(CsvSchema.emptySchema()).readValues(text)) {
      while (it.hasNextValue()) {
        all.add(Arrays.asList(it.nextValue()));
      }
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new IOException(name + " is not a CSV file" + (at == null ? "" : " (line " + at.getLineNr() + ")")
          + ": " + e.getOriginalMessage(), e);
    } catch (RuntimeException e) {
      throw new IOException(name + " is not a CSV file: " + e.getMessage(), e);
    }
    if (all.isEmpty() || all.get(0).stream().allMatch(String::isBlank)) {
      throw new IOException(name + " has no header row.");
    }
    return new CsvTable(name, all.get(0), all.subList(1, all.size()));
  }

  /** The index of column {@code column}, or -1 when the file has no such column. */
  public int column(String column) {
    return header.indexOf(column);
  }

  public boolean has(String column) {
    return header.contains(column);
  }

  /** The cell of {@code row} in {@code column}; empty when the file has no such column. */
  public String get(List<String> row, String column) {
    int i = column(column);
    return i < 0 ? "" : row.get(i);
  }

  /** The cell as a number, or null when it is empty, {@code -}, or not a number. */
  public Double number(List<String> row, String column) {
    return number(get(row, column));
  }

  /** A cell as a number, or null when it is empty, {@code -}, or not a number. */
  static Double number(String cell) {
    String s = cell.strip();
    if (s.isEmpty() || s.equals("-")) {
      return null;
    }
    try {
      double d = Double.parseDouble(s);
      return Double.isFinite(d) ? d : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Rows whose {@code column} equals {@code value}. */
  public List<List<String>> where(String column, String value) {
    int i = column(column);
    return i < 0 ? List.of() : rows.stream().filter(r -> r.get(i).equals(value)).toList();
  }

  /** The distinct values of {@code column}, in the order they first appear. */
  public List<String> distinct(String column) {
    int i = column(column);
    if (i < 0) {
      return List.of();
    }
    return rows.stream().map(r -> r.get(i)).distinct().toList();
  }
}
