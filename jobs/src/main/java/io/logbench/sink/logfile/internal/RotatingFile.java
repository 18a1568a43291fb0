package io.logbench.sink.logfile.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.logfile.Rotation;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.function.LongSupplier;

/**
 * A log file as an app writes it: each batch appended with one write (its lines, each ended by a
 * newline), rotated by {@link Rotation} before the batch that would pass the size or at the first
 * batch after a time boundary. Rotated files are {@code <path>.1} (the newest) to {@code
 * <path>.<keep>}; an older one is deleted. Not thread-safe: {@link LogFiles} shares one per path.
 */
public final class RotatingFile implements AutoCloseable {

  private final Path path;
  private final Rotation rotation;
  private final LongSupplier clock;
  private FileChannel channel;
  private long size;
  private long nextRotationMillis;
  private byte[] buffer = new byte[64 * 1024];
  private long rotations;

  /** Opens (appending to) {@code path}, creating its directory; {@code clock} gives epoch ms. */
  public RotatingFile(Path path, Rotation rotation, LongSupplier clock) throws IOException {
    this.path = path.toAbsolutePath();
    this.rotation = rotation;
    this.clock = clock;
    Path dir = this.path.getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    open();
    nextRotationMillis = nextBoundary(clock.getAsLong());
  }

  private void open() throws IOException {
    channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    size = channel.size();
  }

  private long nextBoundary(long now) {
    if (rotation.every() == null) {
      return Long.MAX_VALUE;
    }
    long every = rotation.every().toMillis();
    return Math.floorDiv(now, every) * every + every;
  }

  /** Appends the lines of {@code batch}, rotating first when the rotation says so. */
  public void append(LineBatch batch) throws IOException {
    int bytes = batch.byteSize() + batch.count();
    long now = clock.getAsLong();
    if (size > 0 && ((rotation.sizeBytes() > 0 && size + bytes > rotation.sizeBytes()) || now >= nextRotationMillis)) {
      rotate();
    }
    if (now >= nextRotationMillis) {
      nextRotationMillis = nextBoundary(now);
    }
    if (buffer.length < bytes) {
      buffer = new byte[Math.max(bytes, buffer.length * 2)];
    }
    byte[] data = batch.rawData();
    int p = 0;
    for (int k = 0; k < batch.count(); k++) {
      int len = batch.length(k);
      System.arraycopy(data, batch.start(k), buffer, p, len);
      p += len;
      buffer[p++] = '\n';
    }
    ByteBuffer b = ByteBuffer.wrap(buffer, 0, p);
    while (b.hasRemaining()) {
      channel.write(b);
    }
    size += p;
  }

  /** Rotates now: shifts the kept files, then renames or copies and truncates the file. */
  public void rotate() throws IOException {
    Path oldest = rotated(rotation.keep());
    if (rotation.keep() == 0) {
      oldest = rotated(1);
    }
    Files.deleteIfExists(oldest);
    for (int i = rotation.keep() - 1; i >= 1; i--) {
      Path from = rotated(i);
      if (Files.exists(from)) {
        Files.move(from, rotated(i + 1), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    if (rotation.mode() == Rotation.Mode.RENAME) {
      channel.close();
      if (rotation.keep() == 0) {
        Files.delete(path);
      } else {
        Files.move(path, rotated(1), StandardCopyOption.REPLACE_EXISTING);
      }
      open();
    } else {
      if (rotation.keep() > 0) {
        Files.copy(path, rotated(1), StandardCopyOption.REPLACE_EXISTING);
      }
      channel.truncate(0);
      size = 0;
    }
    rotations++;
  }

  /** The rotated file {@code i} ({@code <path>.i}). */
  public Path rotated(int i) {
    return path.resolveSibling(path.getFileName() + "." + i);
  }

  /** Rotations so far. */
  public long rotations() {
    return rotations;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
