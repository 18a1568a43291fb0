package io.logbench.replay;

import io.logbench.rundir.RunDir;
import java.io.Closeable;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The run directory's record of what restores sent again, and every write to it, in one class so
 * the storage can change in one place. In a local run directory:
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
 * <p>In a run directory that is not local ({@link RunDir}: an object store, HDFS), where a file is
 * written once and whole and never appended to or rewritten:
 *
 * <ul>
 *   <li>{@value #LEASES}{@code /<backend>/stripe-<s>/<batch>.lease} (20 digits): each extension of
 *       the lease is a new file named by its batch id, and the one before it is deleted once the
 *       new one is written; the lease is the highest number there (a lease only grows, across
 *       restores too), so a failure between the write and the delete loses nothing;
 *   <li>{@value #RESTORE_RECORDS}{@code /<time>-<random>.json}: one file per restore record, its
 *       name starting with the record's time (20 digits) so the names sort in the order written.
 * </ul>
 *
 * <p>{@link #read} reads both layouts. A fresh run starts with {@link #clear}; a restored task
 * finds the leases its failed attempt left and records what it sends again. Local writes survive
 * the death of the JVM that made them (they reach the operating system at once) but are not forced
 * to disk.
 */
public final class ReplayFiles implements Serializable {

  private static final long serialVersionUID = 1L;

  /** The run directory's folder of lease files. */
  public static final String LEASES = "replay";
  /** The run directory's restore records (a local run directory). */
  public static final String RESTORES = "restores.jsonl";
  /** The run directory's folder of restore records, one file each (a run directory that is not local). */
  public static final String RESTORE_RECORDS = "restores";

  /** Every append to a restore file of this JVM, so two tasks' lines never interleave. */
  private static final Object APPEND_LOCK = new Object();

  private final RunDir runDir;

  private ReplayFiles(RunDir runDir) {
    this.runDir = runDir;
  }

  /** The files of the local run directory {@code runDir}. */
  public static ReplayFiles in(Path runDir) {
    return in(RunDir.of(runDir));
  }

  /** The files of the run directory {@code runDir}, wherever it is. */
  public static ReplayFiles in(RunDir runDir) {
    return new ReplayFiles(runDir.absolute());
  }

  public RunDir runDir() {
    return runDir;
  }

  private Path local() {
    return runDir.local().orElseThrow(() -> new IllegalStateException("The run directory " + runDir
        + " is not local; its restore records and leases are files of their own."));
  }

  /** The restore records' file (a local run directory). */
  public Path restoresFile() {
    return local().resolve(RESTORES);
  }

  /** Where the restore records are, as printed in messages. */
  public String restoresLocation() {
    return runDir.local().isPresent() ? runDir.describe(RESTORES) : runDir.describe(RESTORE_RECORDS);
  }

  /** The lease file of a backend's stripe (a local run directory). */
  public Path leaseFile(String backend, int stripe) {
    return local().resolve(LEASES).resolve(backend).resolve("stripe-" + stripe + ".lease");
  }

  /** Removes the leases and restore records of an earlier run in the directory (a fresh run). */
  public void clear() throws IOException {
    runDir.delete(RESTORES);
    runDir.delete(RESTORE_RECORDS);
    runDir.delete(LEASES);
  }

  /** Opens the lease of a backend's stripe, creating it (empty: nothing emitted) if needed. */
  public Lease lease(String backend, int stripe) throws IOException {
    if (runDir.local().isEmpty()) {
      return new ObjectLease(runDir.resolve(LEASES + "/" + backend + "/stripe-" + stripe));
    }
    Path file = leaseFile(backend, stripe);
    Files.createDirectories(file.getParent());
    return new FileLease(file, FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE));
  }

  /** Appends a restore record as one line, in one write (or, not local, writes it as a file of its own). */
  public void append(RestoreRecord record) throws IOException {
    if (runDir.local().isEmpty()) {
      String name = String.format(java.util.Locale.ROOT, "%s/%020d-%s.json", RESTORE_RECORDS, record.timeMillis(),
          java.util.UUID.randomUUID());
      runDir.create(name, record.toJson().getBytes(StandardCharsets.UTF_8));
      return;
    }
    ByteBuffer line = ByteBuffer.wrap((record.toJson() + "\n").getBytes(StandardCharsets.UTF_8));
    Files.createDirectories(local());
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
   * Every complete restore record, in the order written: the lines of {@value #RESTORES}, then the
   * files of {@value #RESTORE_RECORDS}; none when there are neither. A line a writer has not
   * finished (no newline yet) is left for the next read.
   */
  public List<RestoreRecord> read() throws IOException {
    List<RestoreRecord> out = new ArrayList<>();
    if (runDir.exists(RESTORES)) {
      String text = runDir.readString(RESTORES);
      String[] lines = text.substring(0, text.lastIndexOf('\n') + 1).split("\n");
      for (int i = 0; i < lines.length; i++) {
        if (!lines[i].isBlank()) {
          out.add(RestoreRecord.parse(lines[i], runDir.describe(RESTORES) + " line " + (i + 1)));
        }
      }
    }
    for (String f : runDir.files(RESTORE_RECORDS)) {
      String name = RESTORE_RECORDS + "/" + f;
      out.add(RestoreRecord.parse(runDir.readString(name).strip(), runDir.describe(name)));
    }
    return out;
  }

  /**
   * One stripe's lease, open for the life of its reader: {@link #previous} is what an earlier
   * attempt left, {@link #write} replaces it.
   */
  public abstract static class Lease implements Closeable {

    /** What {@link #previous} answers when nothing was emitted. */
    public static final long NONE = -1;
    /** What {@link #previous} answers when the lease is unreadable: any batch may have been emitted. */
    public static final long UNKNOWN = Long.MAX_VALUE;

    Lease() {}

    /**
     * The batch id the lease holds: {@link #NONE} when there is none (written before the first
     * batch, so none means none was emitted), {@link #UNKNOWN} when it cannot be read.
     */
    public abstract long previous() throws IOException;

    /** Replaces the lease's batch id with {@code batch}. */
    public abstract void write(long batch);
  }

  /**
   * A lease as files written once ({@code <batch>.lease}, 20 digits) in its own folder: the highest
   * is in force; writing one deletes the one before.
   */
  static final class ObjectLease extends Lease {

    private final RunDir dir;
    private long written = NONE;

    ObjectLease(RunDir dir) {
      this.dir = dir;
    }

    static String name(long batch) {
      return String.format(java.util.Locale.ROOT, "%020d.lease", batch);
    }

    @Override
    public long previous() throws IOException {
      long highest = NONE;
      for (String f : dir.files("")) {
        if (!f.matches("\\d{20}\\.lease")) {
          return UNKNOWN;
        }
        highest = Math.max(highest, Long.parseLong(f.substring(0, 20)));
      }
      return highest;
    }

    @Override
    public void write(long batch) {
      try {
        dir.create(name(batch), (name(batch).substring(0, 20) + "\n").getBytes(StandardCharsets.US_ASCII));
        if (written != NONE && written != batch) {
          dir.delete(name(written));
        }
        written = batch;
      } catch (IOException e) {
        throw new UncheckedIOException("Could not extend the replay lease " + dir.describe(name(batch)) + ": "
            + e.getMessage(), e);
      }
    }

    @Override
    public void close() {}
  }

  /**
   * A lease in a local file, rewritten in place through a mapping of its 20 bytes: a write every
   * few batches on the task thread is a store to memory, not a system call (a positional write
   * each time was 1.2% of a 100k-lines/s run's CPU; docs/benchmarks.md, eighteenth round). The
   * mapped bytes are the file's page in the page cache, so the value survives the JVM's end, a
   * crash included, as a write's would.
   */
  static final class FileLease extends Lease {

    private static final int WIDTH = 20;

    private final Path file;
    private final FileChannel channel;
    private final byte[] digits = new byte[WIDTH];
    /** The file's bytes, mapped at the first write. */
    private MappedByteBuffer mapped;

    private FileLease(Path file, FileChannel channel) {
      this.file = file;
      this.channel = channel;
    }

    /**
     * The batch id the file holds: {@link #NONE} when it is empty (written before the first
     * batch, so an empty file means none was emitted) or holds only the zero bytes its mapping
     * extended it with, {@link #UNKNOWN} when it cannot be read.
     */
    @Override
    public long previous() throws IOException {
      ByteBuffer in = ByteBuffer.allocate(WIDTH);
      while (in.hasRemaining() && channel.read(in, in.position()) > 0) {
        // read the whole fixed-width value
      }
      String text = new String(in.array(), 0, in.position(), StandardCharsets.US_ASCII).replace('\0', ' ').strip();
      if (text.isEmpty()) {
        return NONE;
      }
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        return UNKNOWN;
      }
    }

    /** Replaces the file's batch id with {@code batch}: 19 digits and a newline. */
    @Override
    public void write(long batch) {
      // by hand, nine digits at a time through an int: C1 makes each 64-bit division a call
      long v = batch;
      digits[WIDTH - 1] = '\n';
      int i = WIDTH - 2;
      while (i >= 0) {
        int chunk = (int) (v % 1_000_000_000L);
        v /= 1_000_000_000L;
        for (int d = 0; d < 9 && i >= 0; d++, i--) {
          digits[i] = (byte) ('0' + chunk % 10);
          chunk /= 10;
        }
      }
      try {
        if (mapped == null) {
          // extends an empty file to its 20 bytes (zeros, read as no lease) before the value
          mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, WIDTH);
        }
        mapped.put(0, digits);
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
