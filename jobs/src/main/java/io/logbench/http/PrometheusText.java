package io.logbench.http;

import java.util.OptionalDouble;

/**
 * Reads a figure from a {@code /metrics} page in the Prometheus text exposition format: the sum
 * of every sample of one metric, whatever its labels. Enough to read a server's own size metric;
 * comments, other metrics and timestamps are skipped.
 */
public final class PrometheusText {

  private PrometheusText() {}

  /**
   * The sum of the samples of {@code metric} in {@code page} (all label sets), or empty when the
   * page has none.
   *
   * @throws IllegalArgumentException when a sample of {@code metric} has no number for a value
   */
  public static OptionalDouble sum(String page, String metric) {
    double sum = 0;
    boolean found = false;
    for (String raw : page.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#") || !line.startsWith(metric)) {
        continue;
      }
      int after = metric.length();
      if (after < line.length() && line.charAt(after) != '{' && line.charAt(after) != ' ') {
        continue; // a longer name that starts with this one
      }
      String rest = line.substring(after);
      if (rest.startsWith("{")) {
        int close = rest.lastIndexOf('}');
        if (close < 0) {
          throw new IllegalArgumentException("The sample \"" + line + "\" of " + metric + " has no closing brace.");
        }
        rest = rest.substring(close + 1);
      }
      String[] parts = rest.strip().split("\\s+");
      try {
        sum += Double.parseDouble(parts[0]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("The sample \"" + line + "\" of " + metric + " has no number for a value.");
      }
      found = true;
    }
    return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
  }
}
