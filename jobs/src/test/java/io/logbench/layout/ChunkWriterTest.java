package io.logbench.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.layout.SeedLayout.LayoutFile;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ChunkWriter} with direct I/O writes the same bytes as through the page cache alone, with
 * chunks at offsets that are not block-aligned, written at once by two writers (so neighbours
 * share a block), large enough that partial blocks are carried from one flush to the next.
 */
class ChunkWriterTest {

  private static final ZoneId ZONE = NginxMonthDataset.SCRIPT_ZONE;
  // an evening hour of the seed's daily curve, about 16,000 lines (1.3 MB) a minute
  private static final long FROM = Instant.parse("2021-05-03T18:00:00Z").toEpochMilli();
  private static final long UNTIL = FROM + 10 * 60_000L;

  private final NginxMonthDataset dataset = new NginxMonthDataset(8, NginxMonthDataset.Mode.PYTHON_COMPATIBLE);

  @TempDir Path dir;

  @Test
  void largeChunksWrittenDirectlyByTwoWritersEqualThePageCacheOnes() throws Exception {
    // 40,000 lines are about 3.2 MB: more than one flush a chunk
    List<LayoutFile> files = SeedLayout.plan(dataset, ZONE, FROM, UNTIL, 40_000);
    assertThat(files.stream().mapToInt(f -> f.chunks().size()).sum()).isGreaterThan(3);

    long direct = write(files, dir.resolve("direct"), true, 2);
    write(files, dir.resolve("page-cache"), false, 1);

    assertSameBytes(files);
    assertWroteDirectly(direct, files);
  }

  @Test
  void oneMinuteChunksWrittenDirectlyEqualThePageCacheOnes() throws Exception {
    // a chunk holds whole minutes: at most one line a chunk makes one chunk a minute, a flush each
    List<LayoutFile> files = SeedLayout.plan(dataset, ZONE, FROM, FROM + 20 * 60_000L, 1);
    assertThat(files.stream().mapToInt(f -> f.chunks().size()).sum()).isEqualTo(20);

    long direct = write(files, dir.resolve("direct"), true, 2);
    write(files, dir.resolve("page-cache"), false, 1);

    assertSameBytes(files);
    assertWroteDirectly(direct, files);
  }

  @Test
  void writingWithoutDirectIoWritesNothingDirectly() throws Exception {
    List<LayoutFile> files = SeedLayout.plan(dataset, ZONE, FROM, FROM + 60_000L, 5_000);
    assertThat(write(files, dir.resolve("page-cache"), false, 1)).isZero();
  }

  /** Writes every chunk with {@code writers} writers taking turns; the bytes they wrote directly. */
  private long write(List<LayoutFile> files, Path out, boolean directIo, int writers) throws Exception {
    Files.createDirectories(out);
    List<FileChunk> chunks = new ArrayList<>();
    for (LayoutFile f : files) {
      try (RandomAccessFile raf = new RandomAccessFile(out.resolve(f.name()).toFile(), "rw")) {
        raf.setLength(f.size());
      }
      chunks.addAll(f.chunks());
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<Long>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int first = w;
        done.add(pool.submit(() -> {
          ChunkWriter writer = new ChunkWriter(dataset, out, directIo);
          for (int i = first; i < chunks.size(); i += writers) {
            FileChunk c = chunks.get(i);
            assertThat(writer.write(c)).isEqualTo(c.size());
          }
          return writer.directBytes();
        }));
      }
      long direct = 0;
      for (Future<Long> f : done) {
        direct += f.get();
      }
      return direct;
    } finally {
      pool.shutdownNow();
    }
  }

  private void assertSameBytes(List<LayoutFile> files) throws IOException {
    for (LayoutFile f : files) {
      byte[] direct = Files.readAllBytes(dir.resolve("direct").resolve(f.name()));
      byte[] cached = Files.readAllBytes(dir.resolve("page-cache").resolve(f.name()));
      assertThat(direct.length).as(f.name()).isEqualTo(f.size());
      assertThat(direct).as(f.name()).isEqualTo(cached);
      // the files start sparse: a block no writer wrote would read as zeros
      assertThat(direct).as(f.name()).doesNotContain((byte) 0);
    }
  }

  /** Where the temporary directory's file system takes O_DIRECT, most bytes went that way. */
  private void assertWroteDirectly(long direct, List<LayoutFile> files) {
    long total = files.stream().mapToLong(LayoutFile::size).sum();
    if (takesDirectIo(dir)) {
      assertThat(direct).isGreaterThan(total / 2).isLessThanOrEqualTo(total);
      assertThat(direct % 4096).isZero();
    } else {
      assertThat(direct).as("the file system refused O_DIRECT").isZero();
    }
  }

  private static boolean takesDirectIo(Path dir) {
    Path probe = dir.resolve("probe");
    try (FileChannel c = FileChannel.open(probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
      ByteBuffer b = ByteBuffer.allocateDirect(2 * 65536).alignedSlice(65536);
      b.limit(65536);
      c.write(b, 0);
      return true;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    } finally {
      try {
        Files.deleteIfExists(probe);
      } catch (IOException e) {
        // the temporary directory goes anyway
      }
    }
  }
}
