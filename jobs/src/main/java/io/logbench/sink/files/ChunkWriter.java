package io.logbench.sink.files;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes one {@link FileChunk} of the seed layout at its offset: lines made by a dataset cursor,
 * newline-joined, through a reusable buffer with positional writes, so chunks of one file can be
 * written at once by several writers. Not thread-safe: one per task.
 */
public final class ChunkWriter {

  private static final int BATCH_LINES = 4096;
  private static final byte NEWLINE = '\n';

  private final Dataset dataset;
  private final Path dir;
  private final LineBatch batch = new LineBatch(BATCH_LINES, BATCH_LINES * 128);
  private ByteBuffer buffer = ByteBuffer.allocate(4 << 20);

  public ChunkWriter(Dataset dataset, Path dir) {
    this.dataset = dataset;
    this.dir = dir;
  }

  /** Writes the chunk and returns the number of bytes written (its size). */
  public long write(FileChunk chunk) throws IOException {
    LineCursor cursor = dataset.cursor(chunk.firstLine(), chunk.resumeToken());
    long position = chunk.offset();
    long written = 0;
    buffer.clear();
    try (FileChannel channel = FileChannel.open(dir.resolve(chunk.file()), StandardOpenOption.WRITE)) {
      // minutes numbered from the chunk's first; -1 stands for the minute before it
      MinuteJoiner joiner = new MinuteJoiner(chunk.leadingNewline() ? -1 : 0);
      int[] minuteLines = chunk.minuteLines();
      for (int m = 0; m < minuteLines.length; m++) {
        newlines(joiner.advanceTo(m));
        int left = minuteLines[m];
        while (left > 0) {
          int n = Math.min(left, BATCH_LINES);
          batch.reset(0, cursor.position());
          for (int k = 0; k < n; k++) {
            cursor.next(batch);
          }
          byte[] data = batch.data();
          for (int k = 0; k < n; k++) {
            newlines(joiner.line(m));
            int start = batch.start(k);
            put(data, start, batch.end(k) - start);
          }
          left -= n;
          if (buffer.position() > buffer.capacity() / 2) {
            written += flush(channel, position + written);
          }
        }
      }
      written += flush(channel, position + written);
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
      put(NEWLINE);
    }
  }

  private void put(byte b) {
    if (!buffer.hasRemaining()) {
      grow(1);
    }
    buffer.put(b);
  }

  private void put(byte[] src, int off, int len) {
    if (buffer.remaining() < len) {
      grow(len);
    }
    buffer.put(src, off, len);
  }

  private void grow(int atLeast) {
    ByteBuffer bigger = ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + atLeast));
    buffer.flip();
    bigger.put(buffer);
    buffer = bigger;
  }

  private long flush(FileChannel channel, long at) throws IOException {
    buffer.flip();
    long n = 0;
    while (buffer.hasRemaining()) {
      n += channel.write(buffer, at + n);
    }
    buffer.clear();
    return n;
  }
}
