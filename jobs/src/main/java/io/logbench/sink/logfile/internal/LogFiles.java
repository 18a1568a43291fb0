package io.logbench.sink.logfile.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.logfile.Rotation;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * One {@link RotatingFile} per path in this JVM, shared by every subtask that writes it (as the
 * threads of one app share its log file): appends are whole batches under the file's lock, so
 * lines never interleave within a batch, and the file is closed when its last writer closes.
 */
public final class LogFiles {

  private static final Map<Path, Shared> OPEN = new HashMap<>();

  private static final class Shared {
    final RotatingFile file;
    int users;

    Shared(RotatingFile file) {
      this.file = file;
    }
  }

  private final Path path;
  private final Shared shared;
  private boolean closed;

  private LogFiles(Path path, Shared shared) {
    this.path = path;
    this.shared = shared;
  }

  /** A writer of {@code path}, sharing the file with the other writers of it in this JVM. */
  public static LogFiles open(Path path, Rotation rotation) throws IOException {
    Path key = path.toAbsolutePath().normalize();
    synchronized (OPEN) {
      Shared s = OPEN.get(key);
      if (s == null) {
        s = new Shared(new RotatingFile(key, rotation, System::currentTimeMillis));
        OPEN.put(key, s);
      }
      s.users++;
      return new LogFiles(key, s);
    }
  }

  /** Appends {@code batch} (rotating first when due). */
  public void append(LineBatch batch) throws IOException {
    synchronized (shared) {
      shared.file.append(batch);
    }
  }

  /** Stops writing; the last writer of the path closes the file. */
  public void close() throws IOException {
    synchronized (OPEN) {
      if (closed) {
        return;
      }
      closed = true;
      if (--shared.users == 0) {
        OPEN.remove(path);
        shared.file.close();
      }
    }
  }
}
