package io.logbench.bench;

import io.logbench.dataset.KeyedCounts;
import io.logbench.dataset.nginx.NginxMonthDataset;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Counts the whole of nginx-month (python-compatible) by status per day three times in one JVM:
 * cold (no generator state recorded yet, so the pieces run in order and hand their states on),
 * then warm on one thread and warm on two, printing wall time and process CPU time of each. Run
 * it with {@code deploy/bench/keyed-month.sh}.
 */
public final class KeyedMonthBench {

  private KeyedMonthBench() {}

  public static void main(String[] args) {
    NginxMonthDataset month = new NginxMonthDataset(8, NginxMonthDataset.Mode.PYTHON_COMPATIBLE);
    KeyedCounts status = month.keyedCounts("status");
    long[] days = new long[32];
    for (int d = 0; d <= 31; d++) {
      days[d] = month.linesBefore(d * 1440);
    }
    long[][] first = null;
    for (String run : new String[] {"cold, 2 threads asked", "warm, 1 thread", "warm, 2 threads"}) {
      int threads = run.startsWith("warm, 1") ? 1 : 2;
      long cpu = processCpuNanos();
      long wall = System.nanoTime();
      long[][] counts = status.count(days, threads);
      wall = System.nanoTime() - wall;
      cpu = processCpuNanos() - cpu;
      if (first == null) {
        first = counts;
      } else if (!java.util.Arrays.deepEquals(first, counts)) {
        throw new IllegalStateException("The " + run + " counts differ from the first run's.");
      }
      System.out.printf(Locale.ROOT, "%-22s wall %6.2f s   process CPU %6.2f s   %5.1f ns a line%n",
          run, wall / 1e9, cpu / 1e9, (double) cpu / month.size());
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
