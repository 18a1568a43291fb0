package io.logbench.bench;

import io.logbench.dataset.Dataset;
import io.logbench.dataset.KeyedCounts;
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
 * Lines per second one thread counts by key ({@link KeyedCounts}) without making them: 2^20
 * lines, one range, from a recorded generator state for python-compatible nginx-month (the
 * serial pass that records the states runs in the setup). Run it with {@code deploy/bench/jmh.sh
 * KeyedCountsBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class KeyedCountsBenchmark {

  static final long LINES = 1L << 20;

  @Param({
    "nginx-month-python-compatible:status",
    "nginx-month-python-compatible:path",
    "nginx-month-fast:status",
    "app-json:level",
    "app-json:container"
  })
  public String counted;

  private KeyedCounts counts;
  private long[] bounds;

  @Setup(Level.Trial)
  public void setUp() {
    String[] kindAndKey = counted.split(":");
    Dataset dataset = LineGenerationBenchmark.datasetFor(kindAndKey[0], 8);
    counts = dataset.keyedCounts(kindAndKey[1]);
    bounds = new long[] {4 * LINES, 5 * LINES};
    counts.count(bounds, 1); // records the generator states up to the range
  }

  @Benchmark
  @OperationsPerInvocation((int) LINES)
  public long[][] countRange() {
    return counts.count(bounds, 1);
  }
}
