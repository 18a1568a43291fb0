package io.logbench.http;

import java.util.OptionalDouble;

/**
 * Reads a figure from a {@code /metrics} page in the Prometheus text exposition format: the sum
 * of the samples of one metric, of every label set or of those with given labels. Enough to read
 * a server's own size and flush metrics; comments, other metrics and timestamps are skipped.
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
    return sum(page, metric, new String[0]);
  }

  /**
   * The sum of the samples of {@code metric} in {@code page} whose label set holds every one of
   * {@code labels} (each written as in the page, {@code name="value"}), or empty when the page has
   * none.
   *
   * @throws IllegalArgumentException when a sample of {@code metric} has no number for a value
   */
  public static OptionalDouble sum(String page, String metric, String... labels) {
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
        if (!hasAll(rest.substring(1, close), labels)) {
          continue;
        }
        rest = rest.substring(close + 1);
      } else if (labels.length > 0) {
        continue;
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

  private static boolean hasAll(String labelSet, String[] labels) {
    for (String l : labels) {
      int at = labelSet.indexOf(l);
      boolean found = false;
      while (at >= 0 && !found) {
        int end = at + l.length();
        found = (at == 0 || labelSet.charAt(at - 1) == ',' || labelSet.charAt(at - 1) == ' ')
            && (end == labelSet.length() || labelSet.charAt(end) == ',');
        at = labelSet.indexOf(l, at + 1);
      }
      if (!found) {
        return false;
      }
    }
    return true;
  }
}
