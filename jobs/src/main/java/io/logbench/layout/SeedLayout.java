package io.logbench.layout;

import io.logbench.dataset.Dataset;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The seed 004 script's file layout: one {@code YYYY-MM-DD.log} per local day, each minute's
 * lines joined by a newline and the minutes of a day joined by a newline (so no newline at the
 * end, and an empty minute leaves an empty line). A time slice starts its first file at its
 * first minute, with no newline before it.
 *
 * <p>Each file is cut into chunks of whole minutes whose byte offsets are known up front, so any
 * number of writers fill one file at once, each at its own offset.
 */
public final class SeedLayout {

  private static final DateTimeFormatter FILE_NAME = DateTimeFormatter.ofPattern("yyyy-MM-dd'.log'");
  static final long MINUTE = 60_000L;

  private SeedLayout() {}

  /** The file a local day's lines go to, e.g. {@code 2021-05-01.log}. */
  public static String fileName(LocalDate day) {
    return day.format(FILE_NAME);
  }

  /**
   * Lays out dataset lines of [fromMillis, untilMillis) (both on whole minutes) in files by
   * local day of {@code zone}, in chunks of whole minutes of at most about {@code chunkLines}.
   */
  public static List<LayoutFile> plan(
      Dataset dataset, ZoneId zone, long fromMillis, long untilMillis, long chunkLines) {
    if (fromMillis % MINUTE != 0 || untilMillis % MINUTE != 0) {
      throw new IllegalArgumentException(
          "The seed layout writes whole minutes; " + Instant.ofEpochMilli(fromMillis) + " .. "
              + Instant.ofEpochMilli(untilMillis) + " does not start and end on a minute.");
    }
    int minutes = (int) ((untilMillis - fromMillis) / MINUTE);
    long[] firstLine = new long[minutes + 1];
    for (int i = 0; i <= minutes; i++) {
      firstLine[i] = dataset.countBefore(fromMillis + i * MINUTE);
    }
    long[] bytes = new long[minutes];
    IntStream.range(0, minutes)
        .parallel()
        .forEach(i -> bytes[i] = dataset.byteSize(firstLine[i], firstLine[i + 1]));

    List<LayoutFile> files = new ArrayList<>();
    int i = 0;
    while (i < minutes) {
      LocalDate day = Instant.ofEpochMilli(fromMillis + i * MINUTE).atZone(zone).toLocalDate();
      String name = fileName(day);
      int end = i;
      while (end < minutes
          && Instant.ofEpochMilli(fromMillis + end * MINUTE).atZone(zone).toLocalDate().equals(day)) {
        end++;
      }
      List<FileChunk> chunks = new ArrayList<>();
      long offset = 0;
      int chunkStart = i;
      long chunkOffset = 0;
      long chunkLineCount = 0;
      for (int m = i; m < end; m++) {
        long lines = firstLine[m + 1] - firstLine[m];
        if (m > chunkStart && chunkLineCount + lines > chunkLines) {
          chunks.add(chunk(name, chunkOffset, chunkStart, m, firstLine, bytes, i));
          chunkStart = m;
          chunkOffset = offset;
          chunkLineCount = 0;
        }
        chunkLineCount += lines;
        offset += (m > i ? 1 : 0) + bytes[m] + Math.max(lines - 1, 0);
      }
      chunks.add(chunk(name, chunkOffset, chunkStart, end, firstLine, bytes, i));
      files.add(new LayoutFile(name, offset, firstLine[i], firstLine[end] - firstLine[i], chunks));
      i = end;
    }
    return files;
  }

  private static FileChunk chunk(
      String file, long offset, int from, int to, long[] firstLine, long[] bytes, int fileFirstMinute) {
    int[] minuteLines = new int[to - from];
    long size = 0;
    for (int m = from; m < to; m++) {
      long lines = firstLine[m + 1] - firstLine[m];
      minuteLines[m - from] = Math.toIntExact(lines);
      size += (m > fileFirstMinute ? 1 : 0) + bytes[m] + Math.max(lines - 1, 0);
    }
    return new FileChunk(file, offset, size, firstLine[from], firstLine[to] - firstLine[from],
        minuteLines, from > fileFirstMinute, null);
  }

  /** One output file: its name, its size in bytes, its lines and its chunks. */
  public record LayoutFile(String name, long size, long firstLine, long lines, List<FileChunk> chunks) {}
}
