package io.logbench.sink.logfile;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.logfile.internal.RotatingFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RotatingFileTest {

  @TempDir Path dir;

  private static LineBatch lines(long first, int n) {
    LineBatch b = new LineBatch();
    b.reset(first, first);
    for (int i = 0; i < n; i++) {
      byte[] line = String.format("line %04d", first + i).getBytes(StandardCharsets.US_ASCII); // 9 bytes
      b.append(line, 0, line.length, 0, 0);
    }
    return b;
  }

  private static Object inode(Path p) throws Exception {
    return Files.readAttributes(p, BasicFileAttributes.class).fileKey();
  }

  @Test
  void bySizeRenamesBeforeTheBatchThatWouldPassItAndKeepsTheNewestFiles() throws Exception {
    Path log = dir.resolve("logs/app.log");
    try (RotatingFile f = new RotatingFile(log, new Rotation(25, null, Rotation.Mode.RENAME, 2), () -> 0)) {
      f.append(lines(0, 2)); // 20 bytes
      Object first = inode(log);
      f.append(lines(2, 1)); // 30 > 25: rotate first
      assertThat(inode(log.resolveSibling("app.log.1"))).isEqualTo(first);
      f.append(lines(3, 2));
      f.append(lines(5, 2));
      f.append(lines(7, 1));
      assertThat(f.rotations()).isEqualTo(4); // before lines 2, 3, 5 and 7
    }
    assertThat(Files.readString(log)).isEqualTo("line 0007\n");
    assertThat(Files.readString(log.resolveSibling("app.log.1"))).isEqualTo("line 0005\nline 0006\n");
    assertThat(Files.readString(log.resolveSibling("app.log.2"))).isEqualTo("line 0003\nline 0004\n");
    assertThat(log.resolveSibling("app.log.3")).doesNotExist(); // app.log.2 of before was deleted
  }

  @Test
  void copytruncateKeepsTheSameFileAndCopiesItsContent() throws Exception {
    Path log = dir.resolve("app.log");
    try (RotatingFile f = new RotatingFile(log, new Rotation(15, null, Rotation.Mode.COPYTRUNCATE, 1), () -> 0)) {
      f.append(lines(0, 1));
      Object inode = inode(log);
      f.append(lines(1, 1));
      f.append(lines(2, 1));
      assertThat(inode(log)).isEqualTo(inode);
    }
    assertThat(Files.readString(log)).isEqualTo("line 0002\n");
    assertThat(Files.readString(log.resolveSibling("app.log.1"))).isEqualTo("line 0001\n");
    assertThat(log.resolveSibling("app.log.2")).doesNotExist();
  }

  @Test
  void byTimeRotatesAtTheFirstBatchAfterEachBoundaryAndKeepZeroDeletes() throws Exception {
    Path log = dir.resolve("app.log");
    AtomicLong now = new AtomicLong(5_000);
    try (RotatingFile f = new RotatingFile(log, new Rotation(0, Duration.ofSeconds(10), Rotation.Mode.RENAME, 0),
        now::get)) {
      f.append(lines(0, 1));
      now.set(9_999);
      f.append(lines(1, 1));
      now.set(10_000);
      f.append(lines(2, 1));
      now.set(35_000); // two boundaries passed: one rotation
      f.append(lines(3, 1));
      assertThat(f.rotations()).isEqualTo(2);
    }
    assertThat(Files.readString(log)).isEqualTo("line 0003\n");
    try (var files = Files.list(dir)) {
      assertThat(files.toList()).containsExactly(log);
    }
  }

  @Test
  void anExistingFileIsAppendedTo() throws Exception {
    Path log = dir.resolve("app.log");
    Files.writeString(log, "earlier\n");
    try (RotatingFile f = new RotatingFile(log, Rotation.none(), () -> 0)) {
      f.append(lines(0, 1));
    }
    assertThat(Files.readString(log)).isEqualTo("earlier\nline 0000\n");
  }
}
