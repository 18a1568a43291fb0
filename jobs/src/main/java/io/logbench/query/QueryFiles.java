package io.logbench.query;

import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * The files {@code query} writes into the run directory: {@value #QUERIES}, one row per backend
 * and search (times, requests, cells, wrong cells, the search's text), and {@value #MISMATCHES},
 * the wrong cells named (backend, search, bucket, key, value, expected, got). RFC 4180 CSV.
 */
public final class QueryFiles {

  public static final String QUERIES = "queries.csv";
  public static final String MISMATCHES = "query-mismatches.csv";

  /** The columns of {@value #QUERIES}. */
  public static final List<String> QUERY_COLUMNS = List.of("backend", "language", "search", "key", "scope",
      "bucket", "from", "to", "buckets", "cells", "wrong_cells", "status", "runs", "cold_ms", "median_ms",
      "worst_ms", "requests", "query", "error");

  /** The columns of {@value #MISMATCHES}. */
  public static final List<String> MISMATCH_COLUMNS =
      List.of("backend", "search", "bucket_start", "key", "value", "expected", "got");

  private static final CsvMapper CSV = new CsvMapper().enable(CsvGenerator.Feature.ALWAYS_QUOTE_EMPTY_STRINGS);
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssxxx");

  private QueryFiles() {}

  /** Writes both files into {@code runDir}, times in {@code zone}. */
  public static void write(Path runDir, List<SearchOutcome> outcomes, ZoneId zone) throws IOException {
    write(io.logbench.rundir.RunDir.of(runDir), outcomes, zone);
  }

  /** As {@link #write(Path, List, ZoneId)}, for a run directory anywhere (each file written whole). */
  public static void write(io.logbench.rundir.RunDir runDir, List<SearchOutcome> outcomes, ZoneId zone)
      throws IOException {
    java.io.StringWriter queries = new java.io.StringWriter();
    try (Writer w = queries; SequenceWriter rows = CSV.writer().writeValues(w)) {
      rows.write(QUERY_COLUMNS);
      for (SearchOutcome o : outcomes) {
        KeyedQuery q = o.search().query();
        rows.write(List.of(o.backend(), o.language(), o.search().name(), q.key(), o.search().scope(),
            io.logbench.config.Durations.format(java.time.Duration.ofMillis(q.bucketMillis())),
            time(q.fromMillis(), zone), time(q.toMillis(), zone), String.valueOf(q.buckets()),
            String.valueOf(o.cells()), String.valueOf(o.wrongCells()), o.status().name(), String.valueOf(o.runs()),
            millis(o.coldNanos()), millis(o.medianNanos()), millis(o.worstNanos()), String.valueOf(o.requests()),
            o.text(), o.error() == null ? "" : o.error()));
      }
    }
    java.io.StringWriter mismatches = new java.io.StringWriter();
    try (Writer w = mismatches; SequenceWriter rows = CSV.writer().writeValues(w)) {
      rows.write(MISMATCH_COLUMNS);
      for (SearchOutcome o : outcomes) {
        for (Mismatch m : o.mismatches()) {
          rows.write(List.of(m.backend(), m.search(), time(m.bucketStartMillis(), zone), m.key(), m.value(),
              String.valueOf(m.expected()), String.valueOf(m.got())));
        }
      }
    }
    runDir.writeString(QUERIES, queries.toString());
    runDir.writeString(MISMATCHES, mismatches.toString());
  }

  static String time(long millis, ZoneId zone) {
    return TIME.format(Instant.ofEpochMilli(millis).atZone(zone));
  }

  /** Milliseconds with three decimals, or empty for none (-1). */
  static String millis(long nanos) {
    return nanos < 0 ? "" : String.format(Locale.ROOT, "%.3f", nanos / 1e6);
  }
}
