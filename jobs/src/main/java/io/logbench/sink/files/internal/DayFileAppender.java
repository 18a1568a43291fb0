package io.logbench.sink.files.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.layout.MinuteJoiner;
import io.logbench.layout.SeedLayout;
import io.logbench.sink.internal.JsonBytes;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Appends lines, in order, to the seed layout's day files: a line goes to the file of its local
 * day, after the newlines {@link MinuteJoiner} asks for; a day change pads the finished file with
 * its empty trailing minutes. The first file starts at the first line's minute and every later
 * one at its local midnight, as {@link SeedLayout} plans a slice. Not thread-safe.
 *
 * <p>Its {@link State} (file lengths and where the layout stands) is small; {@link #restore}
 * truncates the files back to it, so bytes appended after a checkpoint are written only once.
 */
public final class DayFileAppender implements Closeable {

  private static final long MINUTE = 60_000L;
  private static final byte NEWLINE = '\n';
  private static final Pattern DAY_FILE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}\\.log");

  private final Path dir;
  private final ZoneId zone;
  private final LinkedHashMap<String, Long> lengths = new LinkedHashMap<>();
  private String current;
  private LocalDate currentDay;
  private long dayEndMinute;
  private MinuteJoiner joiner;
  private FileChannel channel;
  private final JsonBytes buffer = new JsonBytes(256 << 10);

  public DayFileAppender(Path dir, ZoneId zone) throws IOException {
    this.dir = dir;
    this.zone = zone;
    Files.createDirectories(dir);
  }

  /** Appends every line of the batch to the files. */
  public void append(LineBatch batch) throws IOException {
    byte[] data = batch.rawData();
    for (int k = 0; k < batch.count(); k++) {
      long minute = Math.floorDiv(batch.timestampMillis(k), MINUTE);
      if (current == null) {
        open(dayOf(minute), minute);
      }
      while (minute > dayEndMinute) {
        newlines(joiner.advanceTo(dayEndMinute));
        LocalDate next = currentDay.plusDays(1);
        open(next, startMinute(next));
      }
      newlines(joiner.line(minute));
      int start = batch.start(k);
      buffer.append(data, start, batch.end(k) - start);
    }
    // a batch counts as acknowledged once its bytes are in the file
    flush();
  }

  /** Writes buffered bytes to the current file. */
  public void flush() throws IOException {
    if (channel == null || buffer.size() == 0) {
      return;
    }
    ByteBuffer bytes = ByteBuffer.wrap(buffer.array(), 0, buffer.size());
    long at = lengths.get(current);
    long n = 0;
    while (bytes.hasRemaining()) {
      n += channel.write(bytes, at + n);
    }
    buffer.clear();
    lengths.put(current, at + n);
  }

  /** Flushes and returns where the layout stands. */
  public State snapshot() throws IOException {
    flush();
    return new State(
        new LinkedHashMap<>(lengths),
        current,
        joiner == null ? 0 : joiner.minute(),
        joiner != null && joiner.hasLine());
  }

  /**
   * Goes back to {@code state}: truncates its files to their lengths and deletes day files of
   * later days (made after it was taken), then appends after it.
   *
   * @throws IOException if a file is shorter than the state says (changed outside the run)
   */
  public void restore(State state) throws IOException {
    closeChannel();
    buffer.clear();
    lengths.clear();
    lengths.putAll(state.lengths());
    for (Map.Entry<String, Long> e : lengths.entrySet()) {
      Path file = dir.resolve(e.getKey());
      long size = Files.exists(file) ? Files.size(file) : -1;
      if (size < e.getValue()) {
        throw new IOException(
            "Cannot restore the files backend: " + file + " has " + Math.max(size, 0)
                + " bytes but the checkpoint wrote " + e.getValue() + "; it was changed outside the run.");
      }
      try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
        c.truncate(e.getValue());
      }
    }
    current = state.current();
    if (current != null) {
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
        for (Path f : files) {
          String name = f.getFileName().toString();
          if (DAY_FILE.matcher(name).matches() && name.compareTo(current) > 0 && !lengths.containsKey(name)) {
            Files.delete(f);
          }
        }
      }
      currentDay = LocalDate.parse(current.substring(0, current.length() - ".log".length()));
      dayEndMinute = startMinute(currentDay.plusDays(1)) - 1;
      joiner = new MinuteJoiner(state.minute(), state.hasLine());
      channel = FileChannel.open(dir.resolve(current), StandardOpenOption.WRITE);
    }
  }

  private void open(LocalDate day, long firstMinute) throws IOException {
    flush();
    closeChannel();
    current = SeedLayout.fileName(day);
    currentDay = day;
    dayEndMinute = startMinute(day.plusDays(1)) - 1;
    joiner = new MinuteJoiner(firstMinute);
    channel =
        FileChannel.open(
            dir.resolve(current),
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
    lengths.put(current, 0L);
  }

  private LocalDate dayOf(long minute) {
    return Instant.ofEpochMilli(minute * MINUTE).atZone(zone).toLocalDate();
  }

  private long startMinute(LocalDate day) {
    return Math.floorDiv(day.atStartOfDay(zone).toInstant().toEpochMilli(), MINUTE);
  }

  private void newlines(int n) {
    for (int i = 0; i < n; i++) {
      buffer.append(NEWLINE);
    }
  }

  private void closeChannel() throws IOException {
    if (channel != null) {
      channel.close();
      channel = null;
    }
  }

  /** Flushes and closes the current file. */
  @Override
  public void close() throws IOException {
    flush();
    closeChannel();
  }

  /**
   * Where the layout stands after a flush.
   *
   * @param lengths bytes of each file written so far, in the order they were opened
   * @param current the file lines go to now (null before the first line)
   * @param minute the current epoch minute of the layout
   * @param hasLine whether that minute has a line already
   */
  public record State(Map<String, Long> lengths, String current, long minute, boolean hasLine) {

    /** The state in a versioned binary form. */
    public void write(DataOutputStream out) throws IOException {
      out.writeInt(1);
      out.writeBoolean(current != null);
      if (current != null) {
        out.writeUTF(current);
      }
      out.writeLong(minute);
      out.writeBoolean(hasLine);
      out.writeInt(lengths.size());
      for (Map.Entry<String, Long> e : lengths.entrySet()) {
        out.writeUTF(e.getKey());
        out.writeLong(e.getValue());
      }
    }

    /** Reads what {@link #write} wrote. */
    public static State read(DataInputStream in) throws IOException {
      int version = in.readInt();
      if (version != 1) {
        throw new IOException("Unknown files backend state version " + version + ".");
      }
      String current = in.readBoolean() ? in.readUTF() : null;
      long minute = in.readLong();
      boolean hasLine = in.readBoolean();
      int n = in.readInt();
      LinkedHashMap<String, Long> lengths = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        lengths.put(in.readUTF(), in.readLong());
      }
      return new State(lengths, current, minute, hasLine);
    }
  }
}
