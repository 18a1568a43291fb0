package io.logbench.canary;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A canary backend's files in its run directory, rolled by day (of the run's zone, by when each
 * line is written) and kept for the retention: {@value #VERDICTS}{@code /<backend>/<day>.jsonl}, one
 * {@link CanaryRecord} a line (windows' verdicts and spot checks), and {@value #LEDGER}{@code
 * /<backend>/<day>.jsonl}, each final window's ledger row as the ledger's upsert log writes one.
 * Days older than the retention are deleted when a day begins and when the writer opens.
 *
 * <p>The position (today's day and both files' lengths) is checkpointed with the checks, and a
 * restore cuts the day's files back to it and deletes later days' files: lines written after the
 * checkpoint come again from the restored checks, so no line is written twice. Local directories
 * only (a canary's run directory is a path). Writes go through the operating system at once,
 * without forcing them to disk.
 */
public final class CanaryFiles implements AutoCloseable {

  /** The folder of the verdict files in the run directory. */
  public static final String VERDICTS = "verdicts";
  /** The folder of the ledger files in the run directory. */
  public static final String LEDGER = "ledger";

  private static final Pattern DAY_FILE = Pattern.compile("(\\d{4}-\\d{2}-\\d{2})\\.jsonl");

  private final Path verdictsDir;
  private final Path ledgerDir;
  private final ZoneId zone;
  private final long retentionDays;
  private LocalDate day;
  private FileChannel verdicts;
  private FileChannel ledger;
  private long verdictsLength;
  private long ledgerLength;

  /** Where a checkpoint left the files: the day written last and its files' lengths (null day: none). */
  public record Position(String day, long verdictsLength, long ledgerLength) {}

  /**
   * Opens the files of {@code backend} under {@code runDir}, at {@code restored} (null for a run
   * without a checkpoint: the files are appended to as they are).
   *
   * @param retentionDays whole days kept before today
   */
  public CanaryFiles(Path runDir, String backend, ZoneId zone, long retentionDays, Position restored)
      throws IOException {
    this.verdictsDir = runDir.resolve(VERDICTS).resolve(backend);
    this.ledgerDir = runDir.resolve(LEDGER).resolve(backend);
    this.zone = zone;
    this.retentionDays = retentionDays;
    Files.createDirectories(verdictsDir);
    Files.createDirectories(ledgerDir);
    if (restored != null && restored.day() != null) {
      LocalDate d = LocalDate.parse(restored.day());
      for (Path dir : List.of(verdictsDir, ledgerDir)) {
        for (Path f : dayFiles(dir)) {
          if (dayOf(f).isAfter(d)) {
            Files.delete(f);
          }
        }
      }
      open(d);
      verdicts.truncate(restored.verdictsLength());
      ledger.truncate(restored.ledgerLength());
      verdictsLength = Math.min(verdictsLength, restored.verdictsLength());
      ledgerLength = Math.min(ledgerLength, restored.ledgerLength());
    }
  }

  /** The directory of the verdict files. */
  public Path verdictsDir() {
    return verdictsDir;
  }

  /** Appends {@code verdictLine} and, when not null, {@code ledgerLine}, to the files of the day of {@code millis}. */
  public void append(String verdictLine, String ledgerLine, long millis) throws IOException {
    LocalDate d = Instant.ofEpochMilli(millis).atZone(zone).toLocalDate();
    if (day == null || d.isAfter(day)) {
      open(d);
    }
    verdictsLength += write(verdicts, verdictsLength, verdictLine);
    if (ledgerLine != null) {
      ledgerLength += write(ledger, ledgerLength, ledgerLine);
    }
  }

  private static long write(FileChannel channel, long at, String line) throws IOException {
    ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
    long n = 0;
    while (b.hasRemaining()) {
      n += channel.write(b, at + n);
    }
    return n;
  }

  /** Closes the day's files, opens {@code d}'s (appending), and deletes the days past the retention. */
  private void open(LocalDate d) throws IOException {
    closeFiles();
    day = d;
    String name = d + ".jsonl";
    verdicts = FileChannel.open(verdictsDir.resolve(name), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    ledger = FileChannel.open(ledgerDir.resolve(name), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    verdictsLength = verdicts.size();
    ledgerLength = ledger.size();
    LocalDate oldest = d.minusDays(retentionDays);
    for (Path dir : List.of(verdictsDir, ledgerDir)) {
      for (Path f : dayFiles(dir)) {
        if (dayOf(f).isBefore(oldest)) {
          Files.delete(f);
        }
      }
    }
  }

  /** Where the files are now, for a checkpoint. */
  public Position position() {
    return new Position(day == null ? null : day.toString(), verdictsLength, ledgerLength);
  }

  /** The day files of {@code dir}, in the order of their days. */
  public static List<Path> dayFiles(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        if (DAY_FILE.matcher(f.getFileName().toString()).matches()) {
          out.add(f);
        }
      }
    }
    out.sort(null);
    return out;
  }

  private static LocalDate dayOf(Path f) {
    var m = DAY_FILE.matcher(f.getFileName().toString());
    if (!m.matches()) {
      throw new IllegalArgumentException(f + " is not a day file.");
    }
    return LocalDate.parse(m.group(1));
  }

  private void closeFiles() throws IOException {
    if (verdicts != null) {
      verdicts.close();
    }
    if (ledger != null) {
      ledger.close();
    }
  }

  @Override
  public void close() throws IOException {
    closeFiles();
  }
}
