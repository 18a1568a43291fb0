package io.logbench.quickstart;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Finds {@value #FILE}, the jar that starts a real Kafka or OpenSearch as a child JVM (built by
 * the {@code servers} module beside its {@code lib/} directory). Looked for, in order: the system
 * property {@value #PROPERTY} or the environment variable {@value #ENV}; next to {@code
 * logbench.jar}; in the build's {@code servers/target/} relative to {@code logbench.jar}
 * ({@code jobs/target/}) or to the working directory.
 */
public final class ServersJar {

  public static final String FILE = "logbench-servers.jar";
  public static final String PROPERTY = "logbench.servers.jar";
  public static final String ENV = "LOGBENCH_SERVERS_JAR";

  private ServersJar() {}

  /** The jar; an {@link IllegalStateException} naming every place looked at when there is none. */
  public static Path find() {
    return find(name -> System.getProperty(name), System::getenv, codeDirectory(), Path.of(""));
  }

  /**
   * As {@link #find()}, from {@code properties}, {@code env}, the directory holding logbench's
   * classes ({@code codeDir}, null when unknown) and the working directory {@code cwd}.
   */
  static Path find(UnaryOperator<String> properties, UnaryOperator<String> env, Path codeDir, Path cwd) {
    String given = properties.apply(PROPERTY);
    String from = "-D" + PROPERTY;
    if (given == null || given.isBlank()) {
      given = env.apply(ENV);
      from = ENV;
    }
    if (given != null && !given.isBlank()) {
      Path p = Path.of(given);
      if (!Files.isRegularFile(p)) {
        throw new IllegalStateException(from + "=" + given + " is not a file; expected the path of "
            + FILE + " (built by 'mvn -B -ntp -q -DskipTests package' in servers/target/).");
      }
      return p;
    }
    Set<Path> candidates = new LinkedHashSet<>();
    if (codeDir != null) {
      candidates.add(codeDir.resolve(FILE));
      candidates.add(codeDir.resolve("../../servers/target").resolve(FILE).normalize());
    }
    candidates.add(cwd.resolve("servers/target").resolve(FILE));
    candidates.add(cwd.resolve("../servers/target").resolve(FILE).normalize());
    List<String> looked = new ArrayList<>();
    for (Path p : candidates) {
      if (Files.isRegularFile(p)) {
        return p;
      }
      looked.add(p.toString());
    }
    throw new IllegalStateException(FILE + " was not found (looked at " + String.join(", ", looked)
        + "); build it with 'mvn -B -ntp -q -DskipTests package' from the repository's root, or set "
        + ENV + " to its path.");
  }

  /** The directory of the jar (or class directory) logbench runs from, or null. */
  static Path codeDirectory() {
    CodeSource source = ServersJar.class.getProtectionDomain().getCodeSource();
    if (source == null || source.getLocation() == null) {
      return null;
    }
    try {
      Path p = Path.of(source.getLocation().toURI()).toAbsolutePath();
      return Files.isDirectory(p) ? p : p.getParent();
    } catch (URISyntaxException | IllegalArgumentException e) {
      return null;
    }
  }
}
