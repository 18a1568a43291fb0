package io.logbench.replay;

import java.io.Closeable;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The run directory's record of what restores sent again, and every write to it, in one class so
 * the storage can change in one place (plain local files today):
 *
 * <ul>
 *   <li>{@value #LEASES}{@code /<backend>/stripe-<s>.lease}: the highest batch id stripe {@code s}
 *       of the backend's source may have emitted, a decimal number (fixed width, then a newline).
 *       The source writes it <b>before</b> emitting any batch beyond it, extending it a few batches
 *       at a time, so it is always an upper bound of what was emitted and costs one small write
 *       every few batches, never one per batch;
 *   <li>{@value #RESTORES}: one JSON object per line, a {@link RestoreRecord} per restored task.
 * </ul>
 *
 * <p>A fresh run starts with {@link #clear}; a restored task finds the leases its failed attempt
 * left and records what it sends again. Writes survive the death of the JVM that made them (they
 * reach the operating system at once) but are not forced to disk.
 */
public final class ReplayFiles implements Serializable {

  private static final long serialVersionUID = 1L;

  /** The run directory's folder of lease files. */
  public static final String LEASES = "replay";
  /** The run directory's restore records. */
  public static final String RESTORES = "restores.jsonl";

  /** Every append to a restore file of this JVM, so two tasks' lines never interleave. */
  private static final Object APPEND_LOCK = new Object();

  private final String runDir;

  private ReplayFiles(String runDir) {
    this.runDir = runDir;
  }

  /** The files of the run directory {@code runDir}. */
  public static ReplayFiles in(Path runDir) {
    return new ReplayFiles(runDir.toAbsolutePath().toString());
  }

  public Path runDir() {
    return Path.of(runDir);
  }

  /** The restore records' file. */
  public Path restoresFile() {
    return runDir().resolve(RESTORES);
  }

  /** The lease file of a backend's stripe. */
  public Path leaseFile(String backend, int stripe) {
    return runDir().resolve(LEASES).resolve(backend).resolve("stripe-" + stripe + ".lease");
  }

  /** Removes the leases and restore records of an earlier run in the directory (a fresh run). */
  public void clear() throws IOException {
    Files.deleteIfExists(restoresFile());
    Path leases = runDir().resolve(LEASES);
    if (Files.exists(leases)) {
      try (Stream<Path> all = Files.walk(leases)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  /** Opens the lease of a backend's stripe, creating it (empty: nothing emitted) if needed. */
  public Lease lease(String backend, int stripe) throws IOException {
    Path file = leaseFile(backend, stripe);
    Files.createDirectories(file.getParent());
    return new Lease(file, FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE));
  }

  /** Appends a restore record as one line, in one write. */
  public void append(RestoreRecord record) throws IOException {
    ByteBuffer line = ByteBuffer.wrap((record.toJson() + "\n").getBytes(StandardCharsets.UTF_8));
    Files.createDirectories(runDir());
    synchronized (APPEND_LOCK) {
      try (FileChannel out = FileChannel.open(restoresFile(), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND)) {
        while (line.hasRemaining()) {
          out.write(line);
        }
      }
    }
  }

  /**
   * Every complete restore record, in the order written; none when the file does not exist. A
   * line a writer has not finished (no newline yet) is left for the next read.
   */
  public List<RestoreRecord> read() throws IOException {
    Path file = restoresFile();
    List<RestoreRecord> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    String text = Files.readString(file, StandardCharsets.UTF_8);
    String[] lines = text.substring(0, text.lastIndexOf('\n') + 1).split("\n");
    for (int i = 0; i < lines.length; i++) {
      if (!lines[i].isBlank()) {
        out.add(RestoreRecord.parse(lines[i], file + " line " + (i + 1)));
      }
    }
    return out;
  }

  /**
   * One stripe's lease file, open for the life of its reader: {@link #previous} is what an earlier
   * attempt left, {@link #write} replaces it.
   */
  public static final class Lease implements Closeable {

    /** What {@link #previous} answers when nothing was emitted. */
    public static final long NONE = -1;
    /** What {@link #previous} answers when the file is unreadable: any batch may have been emitted. */
    public static final long UNKNOWN = Long.MAX_VALUE;

    private static final int WIDTH = 20;

    private final Path file;
    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(WIDTH);

    private Lease(Path file, FileChannel channel) {
      this.file = file;
      this.channel = channel;
    }

    /**
     * The batch id the file holds: {@link #NONE} when it is empty (written before the first
     * batch, so an empty file means none was emitted), {@link #UNKNOWN} when it cannot be read.
     */
    public long previous() throws IOException {
      ByteBuffer in = ByteBuffer.allocate(WIDTH);
      while (in.hasRemaining() && channel.read(in, in.position()) > 0) {
        // read the whole fixed-width value
      }
      String text = new String(in.array(), 0, in.position(), StandardCharsets.US_ASCII).strip();
      if (text.isEmpty()) {
        return NONE;
      }
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        return UNKNOWN;
      }
    }

    /** Replaces the file's batch id with {@code batch} (one positional write of 20 bytes). */
    public void write(long batch) {
      // 19 digits and a newline, written by hand: this runs every few batches on the task thread
      byte[] digits = buffer.array();
      long v = batch;
      digits[WIDTH - 1] = '\n';
      for (int i = WIDTH - 2; i >= 0; i--) {
        digits[i] = (byte) ('0' + v % 10);
        v /= 10;
      }
      buffer.clear();
      try {
        int at = 0;
        while (buffer.hasRemaining()) {
          at += channel.write(buffer, at);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Could not extend the replay lease " + file + ": " + e.getMessage(), e);
      }
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
