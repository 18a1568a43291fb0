package io.logbench.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as k6 and Go write them: {@code 500ms}, {@code 30s}, {@code 2m30s}, {@code 1h}, {@code 1d}. */
public final class Durations {

  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private Durations() {}

  /** The duration, or null when {@code text} is not one. */
  public static Duration parse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    Matcher m = PART.matcher(text);
    Duration total = Duration.ZERO;
    int at = 0;
    while (at < text.length()) {
      if (!m.find(at) || m.start() != at) {
        return null;
      }
      long n = Long.parseLong(m.group(1));
      total =
          total.plus(
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
              });
      at = m.end();
    }
    return total;
  }

  /** Short form of a duration, e.g. {@code 2m30s}, {@code 1d}, {@code 250ms}. */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    StringBuilder b = new StringBuilder();
    long days = d.toDays();
    if (days > 0) {
      b.append(days).append('d');
    }
    if (d.toHoursPart() > 0) {
      b.append(d.toHoursPart()).append('h');
    }
    if (d.toMinutesPart() > 0) {
      b.append(d.toMinutesPart()).append('m');
    }
    if (d.toSecondsPart() > 0) {
      b.append(d.toSecondsPart()).append('s');
    }
    if (d.toMillisPart() > 0) {
      b.append(d.toMillisPart()).append("ms");
    }
    return b.toString();
  }
}
