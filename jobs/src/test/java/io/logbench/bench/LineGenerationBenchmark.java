package io.logbench.bench;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.app.AppJsonDataset;
import io.logbench.dataset.nginx.NginxMonthDataset;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Lines per second a dataset's cursor makes into 100-line {@link LineBatch} batches, the unit a
 * source emits; one dataset kind per {@link #dataset} value. Run it with {@code
 * deploy/bench/jmh.sh LineGenerationBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class LineGenerationBenchmark {

  static final int BATCH_LINES = 100;

  /** Large enough that no run reaches the end, so a cursor never has to restart. */
  static final long LINES = 1L << 40;

  @Param({"app-json", "nginx-month-python-compatible", "nginx-month-fast"})
  public String dataset;

  @Param({"8"})
  public long seed;

  private Dataset source;
  private LineCursor cursor;
  private LineBatch batch;
  private long batchId;

  @Setup(Level.Trial)
  public void setUp() {
    source = datasetFor(dataset, seed);
    cursor = source.cursor(0);
    batch = new LineBatch(BATCH_LINES, 64 * 1024);
  }

  static Dataset datasetFor(String kind, long seed) {
    switch (kind) {
      case "app-json":
        return AppJsonDataset.builder().seed(seed).lines(LINES).build();
      case "nginx-month-python-compatible":
        return new NginxMonthDataset(seed, NginxMonthDataset.Mode.PYTHON_COMPATIBLE);
      case "nginx-month-fast":
        return new NginxMonthDataset(seed, NginxMonthDataset.Mode.FAST);
      default:
        throw new IllegalArgumentException("Unknown dataset kind for the benchmark: " + kind + ".");
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH_LINES)
  public LineBatch fillBatch() {
    if (cursor.position() + BATCH_LINES > source.size()) {
      cursor = source.cursor(0); // nginx-month ends after 712,743,010 lines
    }
    batch.reset(batchId++, cursor.position());
    cursor.next(batch, BATCH_LINES); // as a source fills a batch
    return batch;
  }
}
