package io.logbench.job;

import java.util.Map;
import java.util.TreeMap;

/**
 * One backend's result over one ladder step, as seed 000's tables have it: the achieved rate is
 * the acknowledged lines whose scheduled time falls in the step's hold, over the hold's seconds;
 * latencies (from schedule) and failures are those of the batches scheduled in the hold.
 */
public record StepRow(
    String backend,
    int step,
    long targetRate,
    double holdSeconds,
    long ackedInHold,
    double achievedRate,
    long batches,
    long p50Micros,
    long p95Micros,
    long p99Micros,
    long maxMicros,
    Map<String, Long> failures) {

  public static final String CSV_HEADER =
      "backend,step,target_rate,achieved_rate,acked_in_hold,hold_seconds,batches,p50_ms,p95_ms,p99_ms,max_ms,failures";

  /** Failures as {@code reason=count} pairs joined by {@code ;}, sorted by reason. */
  public String failuresText() {
    StringBuilder b = new StringBuilder();
    new TreeMap<>(failures).forEach((r, n) -> b.append(b.length() == 0 ? "" : ";").append(r).append('=').append(n));
    return b.toString();
  }

  public String csv() {
    String f = failuresText();
    if (f.contains(",") || f.contains("\"")) {
      f = "\"" + f.replace("\"", "\"\"") + "\"";
    }
    return String.join(",", backend, Integer.toString(step), Long.toString(targetRate),
        String.format(java.util.Locale.ROOT, "%.1f", achievedRate), Long.toString(ackedInHold),
        String.format(java.util.Locale.ROOT, "%.3f", holdSeconds), Long.toString(batches),
        ms(p50Micros), ms(p95Micros), ms(p99Micros), ms(maxMicros), f);
  }

  private static String ms(long micros) {
    return String.format(java.util.Locale.ROOT, "%.3f", micros / 1000.0);
  }
}
