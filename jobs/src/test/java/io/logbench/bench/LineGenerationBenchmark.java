package io.logbench.bench;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineCursor;
import io.logbench.dataset.app.AppJsonDataset;
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

  // Dataset kinds; the nginx-month ones are added here as they land (see datasetFor).
  @Param({"app-json"})
  public String dataset;

  @Param({"0"})
  public long seed;

  private LineCursor cursor;
  private LineBatch batch;
  private long batchId;

  @Setup(Level.Trial)
  public void setUp() {
    cursor = datasetFor(dataset, seed).cursor(0);
    batch = new LineBatch(BATCH_LINES, 64 * 1024);
  }

  static Dataset datasetFor(String kind, long seed) {
    switch (kind) {
      case "app-json":
        return AppJsonDataset.builder().seed(seed).lines(LINES).build();
      // ---- nginx-month: not implemented here (io.logbench.dataset.nginx, another worktree).
      // Add "nginx-month-python-compatible" and "nginx-month-fast" to @Param above and a case
      // for each that builds the dataset in that mode with the given seed.
      default:
        throw new IllegalArgumentException("Unknown dataset kind for the benchmark: " + kind + ".");
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH_LINES)
  public LineBatch fillBatch() {
    batch.reset(batchId++, cursor.position());
    for (int k = 0; k < BATCH_LINES; k++) {
      cursor.next(batch);
    }
    return batch;
  }
}
