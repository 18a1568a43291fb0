package io.logbench.cli;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** How the command line prints times, counts and sizes. */
final class Format {

  /** ISO-8601 with the offset always numeric (+00:00 rather than Z). */
  static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssxxx");

  private Format() {}

  static String time(long epochMillis, ZoneId zone) {
    Instant t = Instant.ofEpochMilli(epochMillis);
    String s = t.atZone(zone).format(ISO);
    long ms = Math.floorMod(epochMillis, 1000L);
    return ms == 0 ? s : s.substring(0, 19) + String.format(Locale.ROOT, ".%03d", ms) + s.substring(19);
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  static String bytes(double b) {
    String[] units = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1000 && u < units.length - 1) {
      b /= 1000;
      u++;
    }
    return String.format(Locale.ROOT, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  }

  static String rate(double perSecond) {
    if (perSecond >= 1e6) {
      return String.format(Locale.ROOT, "%.2fM", perSecond / 1e6);
    }
    if (perSecond >= 1e3) {
      return String.format(Locale.ROOT, "%.1fk", perSecond / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f", perSecond);
  }
}
