package io.logbench.report;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A CSV file of the run directory as its header and rows of strings (RFC 4180 quoting, read with
 * Jackson's CSV parser). Columns are looked up by name, so a file that gains columns later (resends
 * by cause, write-to-visible latency) still reads, and the report shows the extra columns as they
 * are.
 *
 * @param name the file's name, for messages and captions
 * @param header the column names, in file order
 * @param rows the data rows kept (all, unless read with a limit), each padded or cut to the
 *     header's width
 * @param totalRows the data rows of the file, kept or not
 * @param counts rows by the values of the columns they were counted by (over all rows, kept or
 *     not); empty when not counted
 */
public record CsvTable(String name, List<String> header, List<List<String>> rows, long totalRows,
    Map<List<String>, Long> counts) {

  private static final CsvMapper CSV = new CsvMapper()
      .enable(CsvParser.Feature.WRAP_AS_ARRAY)
      .enable(CsvParser.Feature.SKIP_EMPTY_LINES);

  public CsvTable {
    header = List.copyOf(header);
    List<List<String>> fitted = new ArrayList<>(rows.size());
    for (List<String> r : rows) {
      fitted.add(fit(r, header.size()));
    }
    rows = List.copyOf(fitted);
    counts = Collections.unmodifiableMap(new LinkedHashMap<>(counts));
  }

  /** A table of all its rows. */
  public CsvTable(String name, List<String> header, List<List<String>> rows) {
    this(name, header, rows, rows.size(), Map.of());
  }

  private static List<String> fit(List<String> r, int width) {
    List<String> row = new ArrayList<>(r.subList(0, Math.min(r.size(), width)));
    while (row.size() < width) {
      row.add("");
    }
    return List.copyOf(row);
  }

  /** Reads {@code file}; its first row is the header. */
  public static CsvTable read(Path file) throws IOException {
    return read(file, Integer.MAX_VALUE, List.of());
  }

  /**
   * Reads {@code file} as a stream, keeping its first {@code keep} rows and counting all of them
   * by the values of {@code countBy} (for a drill-down of millions of ids, of which a page shows
   * a few hundred).
   */
  public static CsvTable read(Path file, int keep, List<String> countBy) throws IOException {
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return read(file.getFileName().toString(), in, keep, countBy);
    }
  }

  /** Reads the file {@code name} of {@code dir}, as {@link #read(Path, int, List)}. */
  public static CsvTable read(io.logbench.rundir.RunDir dir, String name, int keep, List<String> countBy)
      throws IOException {
    try (Reader in = new java.io.InputStreamReader(dir.open(name), StandardCharsets.UTF_8)) {
      return read(name.substring(name.lastIndexOf('/') + 1), new java.io.BufferedReader(in), keep, countBy);
    }
  }

  /**
   * Parses CSV text whose first row is the header.
   *
   * @throws IOException if the text is not CSV or has no header
   */
  public static CsvTable parse(String name, String text) throws IOException {
    return read(name, new StringReader(text), Integer.MAX_VALUE, List.of());
  }

  private static CsvTable read(String name, Reader in, int keep, List<String> countBy) throws IOException {
    List<String> header = null;
    List<List<String>> rows = new ArrayList<>();
    Map<List<String>, Long> counts = new LinkedHashMap<>();
    int[] by = new int[countBy.size()];
    long total = 0;
    try (MappingIterator<String[]> it = CSV.readerFor(String[].class).with(CsvSchema.emptySchema()).readValues(in)) {
      while (it.hasNextValue()) {
        List<String> row = Arrays.asList(it.nextValue());
        if (header == null) {
          if (row.stream().allMatch(String::isBlank)) {
            break;
          }
          header = row;
          for (int i = 0; i < by.length; i++) {
            by[i] = header.indexOf(countBy.get(i));
          }
          continue;
        }
        total++;
        if (rows.size() < keep) {
          rows.add(row);
        }
        if (by.length > 0) {
          List<String> key = new ArrayList<>(by.length);
          for (int i : by) {
            key.add(i >= 0 && i < row.size() ? row.get(i) : "");
          }
          counts.merge(key, 1L, Long::sum);
        }
      }
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new IOException(name + " is not a CSV file" + (at == null ? "" : " (line " + at.getLineNr() + ")")
          + ": " + e.getOriginalMessage(), e);
    } catch (RuntimeException e) {
      throw new IOException(name + " is not a CSV file: " + e.getMessage(), e);
    }
    if (header == null) {
      throw new IOException(name + " has no header row.");
    }
    return new CsvTable(name, header, rows, total, counts);
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
