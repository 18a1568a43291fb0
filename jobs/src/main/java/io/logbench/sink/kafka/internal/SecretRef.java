package io.logbench.sink.kafka.internal;

import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a secret client property comes from: an environment variable or a file, read only when a
 * client opens so the secret itself is never held in a spec, a job graph of specs, a log or a
 * report.
 *
 * @param path the config key path, for error messages
 * @param env the environment variable, or null
 * @param file the file, or null
 */
public record SecretRef(String path, String env, String file) implements Serializable {

  /** Reads the secret now. */
  public String resolve() {
    if (env != null) {
      String v = System.getenv(env);
      if (v == null) {
        throw new IllegalStateException(
            "The environment variable " + env + " named by " + path + " is not set.");
      }
      return v;
    }
    try {
      return Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      // The message names the file, never its content.
      throw new IllegalStateException(
          "The file " + file + " named by " + path + " cannot be read: " + e.getClass().getSimpleName() + ".");
    }
  }

  @Override
  public String toString() {
    return env != null ? "<secret from env " + env + ">" : "<secret from file " + file + ">";
  }
}
