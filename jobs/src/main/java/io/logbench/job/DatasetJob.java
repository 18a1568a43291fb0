package io.logbench.job;

import io.logbench.dataset.Dataset;
import io.logbench.layout.ChunkWriter;
import io.logbench.layout.FileChunk;
import io.logbench.layout.SeedLayout.LayoutFile;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * The {@code dataset} job: writes a dataset (or a time slice of it) in the seed's file layout.
 * Files are created at their final size first; then parallel tasks write chunks of whole minutes
 * at known offsets, and the client follows the chunks as they finish.
 */
public final class DatasetJob {

  private final Dataset dataset;
  private final Path dir;
  private final List<LayoutFile> files;
  private final boolean directIo;

  /**
   * @param directIo whether the writers write whole blocks with {@code O_DIRECT} where the file
   *     system takes it (see {@link ChunkWriter})
   */
  public DatasetJob(Dataset dataset, Path dir, List<LayoutFile> files, boolean directIo) {
    this.dataset = dataset;
    this.dir = dir;
    this.files = files;
    this.directIo = directIo;
  }

  /** What was written. */
  public record Result(long lines, long bytes, int files, int chunks) {}

  /** Progress after each finished chunk. */
  public record Progress(int chunksDone, int chunks, long linesDone, long lines, long bytesDone) {}

  /** Runs the job on {@code env}, reporting progress after every finished chunk. */
  public Result run(StreamExecutionEnvironment env, Consumer<Progress> progress) throws Exception {
    Files.createDirectories(dir);
    List<FileChunk> planned = new ArrayList<>();
    long lines = 0;
    long bytes = 0;
    for (LayoutFile f : files) {
      try (RandomAccessFile raf = new RandomAccessFile(dir.resolve(f.name()).toFile(), "rw")) {
        raf.setLength(0);
        raf.setLength(f.size());
      }
      planned.addAll(f.chunks());
      lines += f.lines();
      bytes += f.size();
    }
    // the client has the generator states at hand; with them the tasks skip nothing
    List<FileChunk> chunks =
        planned.parallelStream().map(c -> c.withResumeToken(dataset.resumeToken(c.firstLine()))).toList();
    long linesDone = 0;
    long bytesDone = 0;
    int done = 0;
    try (CloseableIterator<Long> finished =
        env.fromSequence(0, chunks.size() - 1)
            .setParallelism(1)
            .name("chunks")
            .rebalance()
            .map(new WriteChunk(dataset, dir.toAbsolutePath().toString(), chunks, directIo))
            .name("write seed layout")
            .returns(Types.LONG)
            .executeAndCollect("logbench dataset")) {
      while (finished.hasNext()) {
        FileChunk c = chunks.get(Math.toIntExact(finished.next()));
        done++;
        linesDone += c.lines();
        bytesDone += c.size();
        progress.accept(new Progress(done, chunks.size(), linesDone, lines, bytesDone));
      }
    }
    if (done != chunks.size()) {
      throw new IllegalStateException("Only " + done + " of " + chunks.size() + " chunks were written.");
    }
    return new Result(lines, bytes, files.size(), chunks.size());
  }

  /** Writes the chunk with the index it receives and passes the index on. */
  static final class WriteChunk extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private final Dataset dataset;
    private final String dir;
    private final List<FileChunk> chunks;
    private final boolean directIo;
    private transient ChunkWriter writer;

    WriteChunk(Dataset dataset, String dir, List<FileChunk> chunks, boolean directIo) {
      this.dataset = dataset;
      this.dir = dir;
      this.chunks = chunks;
      this.directIo = directIo;
    }

    @Override
    public void open(OpenContext openContext) {
      writer = new ChunkWriter(dataset, Path.of(dir), directIo);
    }

    @Override
    public Long map(Long index) {
      try {
        writer.write(chunks.get(Math.toIntExact(index)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return index;
    }
  }
}
