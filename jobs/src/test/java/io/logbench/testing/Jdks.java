package io.logbench.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Other JDKs than the one running the tests, for the tests of what logbench does on a newer Java
 * (the launcher's ahead-of-time cache on Java 25): {@code $LOGBENCH_JAVA25_HOME}, else a JDK of at
 * least that version under {@code /usr/lib/jvm} (where Debian's and Adoptium's packages put them).
 * Without one, {@link #java} skips the calling test, saying so.
 */
public final class Jdks {

  public static final String JAVA25_HOME = "LOGBENCH_JAVA25_HOME";

  private Jdks() {}

  /** The {@code java} of a JDK of Java {@code feature} or later. */
  public static Path java(int feature) {
    String home = System.getenv(JAVA25_HOME);
    if (home != null && !home.isBlank()) {
      Path java = Path.of(home, "bin", "java");
      if (!Files.isExecutable(java) || feature(Path.of(home)) < feature) {
        throw new IllegalStateException(JAVA25_HOME + "=" + home + " is not a JDK " + feature + " or later.");
      }
      return java;
    }
    List<Path> found;
    try (Stream<Path> homes = Files.list(Path.of("/usr/lib/jvm"))) {
      found = homes.filter(h -> feature(h) >= feature && Files.isExecutable(h.resolve("bin").resolve("java")))
          .sorted(Comparator.comparing(Path::toString)).toList();
    } catch (IOException e) {
      found = List.of();
    }
    if (found.isEmpty()) {
      throw RealServers.skip("Java " + feature, "set " + JAVA25_HOME + " (a JDK " + feature + " or later)");
    }
    RealServers.announce("Java " + feature(found.get(0)) + " (" + found.get(0) + ")");
    return found.get(0).resolve("bin").resolve("java");
  }

  /** The feature version of the JDK at {@code home}, from its {@code release} file; 0 when unknown. */
  static int feature(Path home) {
    Properties p = new Properties();
    try (var in = Files.newBufferedReader(home.resolve("release"))) {
      p.load(in);
    } catch (IOException e) {
      return 0;
    }
    String v = p.getProperty("JAVA_VERSION", "").replace("\"", "");
    try {
      return Integer.parseInt(v.split("[.+-]")[0]);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
