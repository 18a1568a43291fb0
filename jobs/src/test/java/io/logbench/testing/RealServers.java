package io.logbench.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;

/**
 * Where the real-server tests find their servers: a binary named by an environment variable
 * ({@code LOGBENCH_LOKI_BIN}, {@code LOGBENCH_VICTORIALOGS_BIN}, {@code LOGBENCH_FLUENTBIT_BIN}),
 * or the URL of a server the user runs ({@code LOGBENCH_LOKI_URL}, {@code
 * LOGBENCH_VICTORIALOGS_URL}). Nothing else is looked at: no path is built in. A test whose server
 * is not there is skipped, and the JVM's output says so once per server, in one line; a server
 * that was started says its name and version once.
 */
public final class RealServers {

  private static final Set<String> ANNOUNCED = ConcurrentHashMap.newKeySet();

  private RealServers() {}

  /** The executable that {@code variable} names, or null when it is unset or empty. */
  public static Path binary(String variable) {
    String v = System.getenv(variable);
    if (v == null || v.isBlank()) {
      return null;
    }
    Path p = Path.of(v);
    if (!Files.isExecutable(p)) {
      throw new IllegalStateException(variable + "=" + v + " is not an executable file.");
    }
    return p;
  }

  /** The URL that {@code variable} holds without a trailing slash, or null when it is unset or empty. */
  public static String url(String variable) {
    String v = System.getenv(variable);
    return v == null || v.isBlank() ? null : v.replaceAll("/+$", "");
  }

  /** Prints {@code line} once per JVM (per distinct line), prefixed {@code real servers: }. */
  public static void announce(String line) {
    if (ANNOUNCED.add(line)) {
      System.out.println("real servers: " + line);
    }
  }

  /**
   * Skips the calling test: {@code server} is not available, and {@code how} says what would make
   * it so (the variables to set). The reason is printed once per server.
   */
  public static RuntimeException skip(String server, String how) {
    String why = server + " not tested: " + how;
    announce(why);
    Assumptions.abort(why);
    throw new AssertionError("unreachable");
  }
}
