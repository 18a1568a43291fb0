package io.logbench.visibility;

import io.logbench.sink.Footprint;
import io.logbench.sink.LatencyHistogram;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One backend's ingest, footprint and visibility figures of a run, a row of {@value #FILE}: the
 * arithmetic is here, the measuring elsewhere ({@link VisibilityReport}, the job's summary, {@code
 * BackendSpec.footprint}).
 *
 * @param backend the backend's name
 * @param kind its kind
 * @param ackedLines lines it acknowledged
 * @param firstSendNanos epoch ns of the run's first send to it (the first batch's scheduled time);
 *     0 when nothing was sent
 * @param lastAckNanos epoch ns of its last answer; 0 when none
 * @param lastVisibleNanos epoch ns the end-of-run count found every acknowledged line; 0 when not
 *     measured
 * @param footprint what it says it stores, or null
 * @param rawBytesPerLine the dataset's bytes per line as files hold them (newline included)
 * @param visibility its visibility polls, or null when not polled
 * @param notes why a figure is missing, sentences joined by "; "
 */
public record IngestRow(String backend, String kind, long ackedLines, long firstSendNanos, long lastAckNanos,
    long lastVisibleNanos, Footprint footprint, double rawBytesPerLine, VisibilityReport visibility, String notes) {

  /** The file of the run directory these rows go to. */
  public static final String FILE = "ingest.csv";

  public static final String CSV_HEADER = "backend,kind,acked_lines,ack_s,ingest_s,lines_per_s,stored_bytes,"
      + "bytes_per_line,raw_bytes_per_line,sample_every,sampled,visible,not_visible,poll_errors,"
      + "visible_from_ack_p50_ms,visible_from_ack_p95_ms,visible_from_ack_max_ms,visible_from_schedule_p50_ms,"
      + "visible_from_schedule_p95_ms,visible_from_schedule_max_ms,stored_source,notes";

  public IngestRow {
    notes = notes == null ? "" : notes;
  }

  /** Seconds from the first send to the last answer, or NaN when unknown. */
  public double ackSeconds() {
    return firstSendNanos == 0 || lastAckNanos < firstSendNanos ? Double.NaN
        : (lastAckNanos - firstSendNanos) / 1e9;
  }

  /** Seconds from the first send to the last line visible, or NaN when not measured. */
  public double ingestSeconds() {
    return firstSendNanos == 0 || lastVisibleNanos == 0 || lastVisibleNanos < firstSendNanos ? Double.NaN
        : (lastVisibleNanos - firstSendNanos) / 1e9;
  }

  /** Acknowledged lines over {@link #ingestSeconds}, or NaN. */
  public double linesPerSecond() {
    double s = ingestSeconds();
    return Double.isNaN(s) || s <= 0 ? Double.NaN : ackedLines / s;
  }

  /** Stored bytes over acknowledged lines, or NaN without a footprint or lines. */
  public double bytesPerLine() {
    return footprint == null || ackedLines == 0 ? Double.NaN : (double) footprint.bytes() / ackedLines;
  }

  /** The row in {@link #CSV_HEADER}'s order; unknown figures are empty cells. */
  public String csv() {
    List<String> c = new ArrayList<>();
    c.add(backend);
    c.add(kind);
    c.add(Long.toString(ackedLines));
    c.add(num(ackSeconds(), 3));
    c.add(num(ingestSeconds(), 3));
    c.add(num(linesPerSecond(), 1));
    c.add(footprint == null ? "" : Long.toString(footprint.bytes()));
    c.add(num(bytesPerLine(), 2));
    c.add(num(rawBytesPerLine, 2));
    VisibilityReport v = visibility;
    c.add(v == null ? "" : Integer.toString(v.sampleEvery()));
    c.add(v == null ? "" : Long.toString(v.sampled()));
    c.add(v == null ? "" : Long.toString(v.visible()));
    c.add(v == null ? "" : Long.toString(v.notVisible()));
    c.add(v == null ? "" : Long.toString(v.pollErrors()));
    for (LatencyHistogram h : v == null ? new LatencyHistogram[] {null, null}
        : new LatencyHistogram[] {v.fromAckMicros(), v.fromScheduleMicros()}) {
      boolean none = h == null || h.count() == 0;
      c.add(none ? "" : ms(h.percentile(50)));
      c.add(none ? "" : ms(h.percentile(95)));
      c.add(none ? "" : ms(h.max()));
    }
    c.add(quote(footprint == null ? "" : footprint.source()));
    c.add(quote(notes));
    return String.join(",", c);
  }

  static String ms(long micros) {
    return String.format(Locale.ROOT, "%.1f", micros / 1000.0);
  }

  static String num(double d, int decimals) {
    return Double.isNaN(d) ? "" : String.format(Locale.ROOT, "%." + decimals + "f", d);
  }

  /** A CSV cell: quoted when it holds a comma, a quote or a line break. */
  static String quote(String s) {
    if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
      return "\"" + s.replace("\"", "\"\"") + "\"";
    }
    return s;
  }
}
