package io.logbench.layout;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.sink.internal.JsonBytes;
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
  // half the initial buffer, so the next batch of lines rarely makes it grow
  private static final int FLUSH_AT = 2 << 20;

  private final Dataset dataset;
  private final Path dir;
  private final LineBatch batch = new LineBatch(BATCH_LINES, BATCH_LINES * 128);
  private final JsonBytes buffer = new JsonBytes(4 << 20);

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
            buffer.append(data, start, batch.end(k) - start);
          }
          left -= n;
          if (buffer.size() > FLUSH_AT) {
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
      buffer.append(NEWLINE);
    }
  }

  private long flush(FileChannel channel, long at) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(buffer.array(), 0, buffer.size());
    long n = 0;
    while (bytes.hasRemaining()) {
      n += channel.write(bytes, at + n);
    }
    buffer.clear();
    return n;
  }
}
