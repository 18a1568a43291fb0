package io.logbench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.rundir.RunDir;
import io.logbench.verify.VerifyOutputs;
import io.logbench.verify.VerifyPlan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The files of a run directory, each read if it is there: a report after {@code generate} alone
 * has no verdicts yet, a run stopped early may have only the per-backend ledgers. Nothing here
 * fails on a missing or unreadable file; {@link #files()} says what was read and what was not.
 *
 * @param dir the run directory
 * @param run {@code run.json}, or null
 * @param ledger the final (or latest) ledger rows, sorted by backend then window; empty if none
 * @param summary {@code summary.csv} (per-backend totals and latency of generate), or null
 * @param steps {@code steps.csv} (ladder steps), or null
 * @param verdicts {@code verdicts.csv}, or null
 * @param missing {@code missing.csv} (the drill-down), or null
 * @param verifyStats {@code verify-stats.csv} (count queries per backend), or null
 * @param verifySummary {@code verify-summary.txt}, or null
 * @param runFile the run file, masked, or null
 * @param files what was read, one entry per file the report looks for
 */
public record RunData(
    RunDir dir,
    JsonNode run,
    List<LedgerEntry> ledger,
    CsvTable summary,
    CsvTable steps,
    CsvTable verdicts,
    CsvTable missing,
    CsvTable verifyStats,
    String verifySummary,
    RunFile runFile,
    List<FileState> files) {

  public static final String SUMMARY = "summary.csv";
  public static final String STEPS = "steps.csv";
  /**
   * Rows of missing.csv kept in memory (the page shows fewer); the others are only counted. A
   * month of windows with a drill-down of 100 ids each would otherwise be millions of rows.
   */
  static final int MISSING_ROWS_KEPT = 10_000;

  public RunData {
    ledger = List.copyOf(ledger);
    files = List.copyOf(files);
  }

  /**
   * What became of one file the report looks for.
   *
   * @param state {@code read}, {@code absent} or {@code unreadable}
   * @param detail what it holds, or why it is absent or could not be read (a sentence)
   */
  public record FileState(String name, String state, String detail) {
    public FileState {
      detail = detail == null ? "" : detail;
    }

    public boolean read() {
      return state.equals("read");
    }
  }

  /**
   * Reads the run directory {@code dir}.
   *
   * @param configOverride the run file to show instead of the one {@code run.json} names (when it
   *     moved), or null
   */
  public static RunData read(Path dir, Path configOverride) {
    return read(RunDir.of(dir), configOverride);
  }

  /** As {@link #read(Path, Path)}, for a run directory anywhere. */
  public static RunData read(RunDir dir, Path configOverride) {
    List<FileState> files = new ArrayList<>();
    JsonNode run = readRunJson(dir, files);
    List<LedgerEntry> ledger = readLedger(dir, files);
    CsvTable summary = csv(dir, SUMMARY, files, "per-backend totals and latency, written when generate ends",
        "generate has not finished on this run directory");
    CsvTable steps = csv(dir, STEPS, files, "ladder steps", "the run has no ladder schedule, or generate has"
        + " not finished");
    String notVerified = "verify has not run on this run directory yet";
    CsvTable verdicts = csv(dir, VerifyOutputs.VERDICTS, files, "one verdict per backend and window", notVerified);
    CsvTable missing = csv(dir, VerifyOutputs.MISSING, files, "the ids of missing and duplicated lines",
        notVerified, MISSING_ROWS_KEPT, List.of("backend", "kind"));
    CsvTable stats = csv(dir, VerifyOutputs.STATS, files, "count queries per backend", notVerified
        + ", or it was run by a logbench that did not write this file");
    String verifySummary = null;
    if (exists(dir, VerifyOutputs.SUMMARY)) {
      try {
        verifySummary = dir.readString(VerifyOutputs.SUMMARY);
        files.add(new FileState(VerifyOutputs.SUMMARY, "read", "verify's printed table and verdict"));
      } catch (IOException e) {
        files.add(new FileState(VerifyOutputs.SUMMARY, "unreadable", e.getMessage()));
      }
    } else {
      files.add(new FileState(VerifyOutputs.SUMMARY, "absent", notVerified));
    }
    RunFile runFile = readRunFile(run, configOverride, files);
    return new RunData(dir, run, ledger, summary, steps, verdicts, missing, stats, verifySummary, runFile, files);
  }

  private static boolean exists(RunDir dir, String name) {
    try {
      return dir.exists(name);
    } catch (IOException e) {
      return true; // reading it says why it cannot be read
    }
  }

  private static JsonNode readRunJson(RunDir dir, List<FileState> files) {
    if (!exists(dir, VerifyPlan.RUN_JSON)) {
      files.add(new FileState(VerifyPlan.RUN_JSON, "absent", "generate has not started on this run directory"));
      return null;
    }
    try {
      JsonNode run = new ObjectMapper().readTree(dir.read(VerifyPlan.RUN_JSON));
      if (run == null || !run.isObject()) {
        throw new IOException("it does not hold a JSON object");
      }
      files.add(new FileState(VerifyPlan.RUN_JSON, "read", "the run's name, start, lines and run file"));
      return run;
    } catch (IOException e) {
      files.add(new FileState(VerifyPlan.RUN_JSON, "unreadable", "it is not JSON: " + e.getMessage()));
      return null;
    }
  }

  /** ledger.csv or ledger.jsonl; else each backend's own ledger under {@code ledger/}. */
  private static List<LedgerEntry> readLedger(RunDir dir, List<FileState> files) {
    try {
      if (dir.exists(LedgerFiles.CSV) || dir.exists(LedgerFiles.JSONL)
          || !dir.files(LedgerFiles.SEGMENTS).isEmpty()) {
        List<LedgerEntry> rows = LedgerFiles.read(dir);
        String name = dir.exists(LedgerFiles.CSV) ? LedgerFiles.CSV
            : dir.exists(LedgerFiles.JSONL) ? LedgerFiles.JSONL : LedgerFiles.SEGMENTS + "/";
        files.add(new FileState(name, "read", rows.size() + " rows: lines expected, sent and acknowledged per"
            + " backend and window"));
        return rows;
      }
      List<String> perBackend = dir.directories("ledger");
      if (!perBackend.isEmpty() || dir.resolve("ledger").exists()) {
        List<LedgerEntry> rows = new ArrayList<>();
        for (String b : perBackend) {
          rows.addAll(LedgerFiles.readLive(dir.resolve("ledger/" + b)));
        }
        files.add(new FileState("ledger/", "read", rows.size() + " rows from each backend's own ledger: the"
            + " run has not finished, so the counts may still grow"));
        return LedgerFiles.sorted(rows);
      }
      files.add(new FileState(LedgerFiles.CSV, "absent", "generate has not written a ledger here"));
    } catch (IOException e) {
      files.add(new FileState(LedgerFiles.CSV, "unreadable", e.getMessage()));
    }
    return List.of();
  }

  private static CsvTable csv(RunDir dir, String name, List<FileState> files, String holds, String whyAbsent) {
    return csv(dir, name, files, holds, whyAbsent, Integer.MAX_VALUE, List.of());
  }

  private static CsvTable csv(RunDir dir, String name, List<FileState> files, String holds, String whyAbsent,
      int keep, List<String> countBy) {
    if (!exists(dir, name)) {
      files.add(new FileState(name, "absent", whyAbsent));
      return null;
    }
    try {
      CsvTable t = CsvTable.read(dir, name, keep, countBy);
      files.add(new FileState(name, "read", String.format(java.util.Locale.ROOT, "%,d rows: ", t.totalRows())
          + holds));
      return t;
    } catch (IOException e) {
      files.add(new FileState(name, "unreadable", e.getMessage()));
      return null;
    }
  }

  private static RunFile readRunFile(JsonNode run, Path configOverride, List<FileState> files) {
    Path path = configOverride;
    if (path == null && run != null && run.path("config").isTextual()) {
      path = Path.of(run.path("config").asText());
    }
    if (path == null) {
      files.add(new FileState("run file", "absent", "run.json does not name it; give it with --config"));
      return null;
    }
    if (!Files.exists(path)) {
      files.add(new FileState(path.toString(), "absent", "the run file is no longer there; give it with --config"));
      return null;
    }
    try {
      RunFile f = RunFile.read(path);
      files.add(new FileState(path.toString(), "read", "the run file, "
          + (f.maskedKeys().isEmpty() ? "no secret in it" : f.maskedKeys().size() + " secret value(s) masked")));
      return f;
    } catch (IOException e) {
      files.add(new FileState(path.toString(), "unreadable", e.getMessage()));
      return null;
    }
  }

  /** The run's name: run.json's, else the directory's. */
  public String name() {
    if (run != null && run.path("name").isTextual()) {
      return run.path("name").asText();
    }
    return dir.name();
  }

  /** Where the run directory is, as the report shows it: an absolute path, or the URI. */
  public String where() {
    return dir.local().map(p -> p.toAbsolutePath().normalize().toString()).orElse(dir.location());
  }

  /** Whether verify wrote its verdicts here. */
  public boolean verified() {
    return verdicts != null;
  }

  /** A run.json number, if there. */
  public Optional<Long> runLong(String key) {
    return run != null && run.path(key).canConvertToLong() ? Optional.of(run.path(key).asLong()) : Optional.empty();
  }

  /** A run.json text, if there. */
  public Optional<String> runText(String key) {
    return run != null && run.path(key).isTextual() ? Optional.of(run.path(key).asText()) : Optional.empty();
  }

  /**
   * The zone the run's times are shown in: run.json's, the run file's, else a fixed offset zone
   * from the ledger's first time, else UTC.
   */
  public ZoneId zone() {
    for (String z : new String[] {runText("zone").orElse(null), runFile == null ? null : runFile.zone()}) {
      if (z != null) {
        try {
          return ZoneId.of(z);
        } catch (RuntimeException e) {
          // not a zone id: try the next source
        }
      }
    }
    if (verdicts != null && !verdicts.rows().isEmpty()) {
      try {
        return java.time.OffsetDateTime.parse(verdicts.get(verdicts.rows().get(0), "window_start")).getOffset();
      } catch (RuntimeException e) {
        // fall through to UTC
      }
    }
    return ZoneOffset.UTC;
  }

  /** Backends named anywhere in the run's files, in first-seen order (ledger, then summary, verdicts). */
  public List<String> backends() {
    java.util.LinkedHashSet<String> names = new java.util.LinkedHashSet<>();
    ledger.forEach(e -> names.add(e.backend()));
    for (CsvTable t : new CsvTable[] {summary, verdicts, verifyStats, steps}) {
      if (t != null) {
        names.addAll(t.distinct("backend"));
      }
    }
    names.remove("");
    return List.copyOf(names);
  }
}
