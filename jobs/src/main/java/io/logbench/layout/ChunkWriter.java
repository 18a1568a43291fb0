package io.logbench.layout;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.sink.internal.JsonBytes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes one {@link FileChunk} of the seed layout at its offset: lines made by a dataset cursor,
 * newline-joined, through a reusable buffer with positional writes, so chunks of one file can be
 * written at once by several writers. Not thread-safe: one per task.
 *
 * <p>With direct I/O (the default) the whole file-system blocks inside a chunk are written with
 * {@code O_DIRECT}, from an aligned buffer straight to the disk, and only the partial blocks at a
 * chunk's two ends, which it shares with its neighbours, through the page cache. Through the page
 * cache alone the kernel's copy into it, and the reclaim of the pages a month of lines fills, cost
 * more CPU than making the lines (8 GB: 15.7 s of system time buffered, 1.0 s direct). Where the
 * file system refuses {@code O_DIRECT} (tmpfs before Linux 6.6, some network file systems, other
 * operating systems) the writer falls back to the page cache for the rest of its life.
 */
public final class ChunkWriter {

  private static final int BATCH_LINES = 4096;
  private static final byte NEWLINE = '\n';
  // half the initial buffer, so the next batch of lines rarely makes it grow
  private static final int FLUSH_AT = 2 << 20;

  /** Bytes of the aligned buffer direct writes go through: a multiple of any block size. */
  private static final int DIRECT_BUFFER = 4 << 20;
  /** The page size of the platforms logbench runs on (x86-64, arm64 with 4 KB pages). */
  private static final int PAGE = 4096;

  private final Dataset dataset;
  private final Path dir;
  private final LineBatch batch = new LineBatch(BATCH_LINES, BATCH_LINES * 128);
  private final JsonBytes buffer = new JsonBytes(4 << 20);
  /** Whether to try direct I/O; false after the file system refused it. */
  private boolean direct;
  private ByteBuffer aligned;
  private long directBytes;

  /** A writer that writes whole blocks with direct I/O where the file system takes it. */
  public ChunkWriter(Dataset dataset, Path dir) {
    this(dataset, dir, true);
  }

  /**
   * @param directIo whether whole blocks go to the disk with {@code O_DIRECT} (where the file
   *     system takes it) rather than through the page cache
   */
  public ChunkWriter(Dataset dataset, Path dir, boolean directIo) {
    this.dataset = dataset;
    this.dir = dir;
    this.direct = directIo;
  }

  /** Bytes this writer wrote with direct I/O so far (0 when the file system refused it). */
  public long directBytes() {
    return directBytes;
  }

  /** Writes the chunk and returns the number of bytes written (its size). */
  public long write(FileChunk chunk) throws IOException {
    LineCursor cursor = dataset.cursor(chunk.firstLine(), chunk.resumeToken());
    long position = chunk.offset();
    long written = 0;
    buffer.clear();
    Path file = dir.resolve(chunk.file());
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE);
        Direct out = new Direct(file)) {
      // minutes numbered from the chunk's first; -1 stands for the minute before it
      MinuteJoiner joiner = new MinuteJoiner(chunk.leadingNewline() ? -1 : 0);
      int[] minuteLines = chunk.minuteLines();
      for (int m = 0; m < minuteLines.length; m++) {
        newlines(joiner.advanceTo(m));
        int left = minuteLines[m];
        while (left > 0) {
          int n = Math.min(left, BATCH_LINES);
          batch.reset(0, cursor.position());
          cursor.next(batch, n);
          byte[] data = batch.rawData();
          for (int k = 0; k < n; k++) {
            newlines(joiner.line(m));
            int start = batch.start(k);
            buffer.append(data, start, batch.end(k) - start);
          }
          left -= n;
          if (buffer.size() > FLUSH_AT) {
            written += flush(channel, out, position + written, false);
          }
        }
      }
      written += flush(channel, out, position + written, true);
    }
    if (written != chunk.size()) {
      throw new IllegalStateException(
          "Chunk of " + chunk.file() + " at offset " + chunk.offset() + " was planned as "
              + chunk.size() + " bytes but " + written + " were written; the dataset's sizes and lines disagree.");
    }
    return written;
  }

  private void newlines(int n) {
    for (int i = 0; i < n; i++) {
      buffer.append(NEWLINE);
    }
  }

  /**
   * Writes the buffer's bytes at {@code at}: the whole blocks among them directly (when {@code out}
   * is open), the rest through {@code channel}, except that unless {@code last} a partial block at
   * the end stays in the buffer for the next flush. Returns the bytes written.
   */
  private long flush(FileChannel channel, Direct out, long at, boolean last) throws IOException {
    byte[] a = buffer.array();
    int n = buffer.size();
    int from = 0;
    if (out.channel != null) {
      int block = out.block;
      from = (int) Math.min(n, Math.floorMod(-at, (long) block)); // up to the next block's start
      writeBuffered(channel, a, 0, from, at);
      int whole = (n - from) / block * block;
      if (whole > 0 && writeDirect(out, a, from, whole, at + from)) {
        from += whole;
      }
    }
    if (last || out.channel == null) {
      writeBuffered(channel, a, from, n - from, at + from);
      from = n;
    }
    System.arraycopy(a, from, a, 0, n - from);
    buffer.size(n - from);
    return from;
  }

  private static void writeBuffered(FileChannel channel, byte[] a, int off, int len, long at) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(a, off, len);
    while (bytes.hasRemaining()) {
      channel.write(bytes, at + bytes.position() - off);
    }
  }

  /**
   * Writes {@code len} bytes (whole blocks, at a block's start) directly; false when the file
   * system refused, after which this writer uses the page cache only (the caller writes them).
   */
  private boolean writeDirect(Direct out, byte[] a, int off, int len, long at) throws IOException {
    if (aligned == null) {
      aligned = ByteBuffer.allocateDirect(DIRECT_BUFFER + out.block).alignedSlice(out.block);
    }
    int done = 0;
    try {
      while (done < len) {
        int piece = Math.min(len - done, aligned.capacity() / out.block * out.block);
        aligned.clear();
        aligned.put(a, off + done, piece).flip();
        while (aligned.hasRemaining()) {
          out.channel.write(aligned, at + done + aligned.position());
        }
        done += piece;
      }
    } catch (IOException e) {
      // EINVAL from a file system that opens with O_DIRECT but does not take its writes: the
      // same bytes go through the page cache, where a real I/O error fails the chunk anyway
      out.refuse();
      direct = false;
      return false;
    }
    directBytes += len;
    return true;
  }

  /** The chunk's file opened for direct I/O, or with a null channel when it cannot be. */
  private final class Direct implements AutoCloseable {
    FileChannel channel;
    final int block;

    Direct(Path file) throws IOException {
      int size = 0;
      FileChannel c = null;
      if (direct) {
        try {
          // whole pages as well as whole blocks: no page-cache page holds both bytes written
          // through it and bytes written directly (the two kinds of write are coherent per page)
          size = Math.max(PAGE, Math.toIntExact(Files.getFileStore(file).getBlockSize()));
          OpenOption option = com.sun.nio.file.ExtendedOpenOption.DIRECT;
          c = FileChannel.open(file, StandardOpenOption.WRITE, option);
        } catch (IOException | UnsupportedOperationException | ArithmeticException e) {
          direct = false; // this file system (or platform) does not take O_DIRECT
        }
      }
      channel = c;
      block = size;
    }

    void refuse() throws IOException {
      FileChannel c = channel;
      channel = null;
      c.close();
    }

    @Override
    public void close() throws IOException {
      if (channel != null) {
        channel.close();
      }
    }
  }
}
