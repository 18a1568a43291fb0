package io.logbench.config;

import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * Where a secret (token, password) comes from: an environment variable or a file named in the run
 * file. It holds only the name, never the value; the value is read when a sender opens.
 *
 * @param what what the secret is, for messages (e.g. "the HEC token")
 * @param env environment variable holding the secret, or null
 * @param file file holding the secret (trailing line breaks dropped), or null
 */
public record SecretRef(String what, String env, String file) implements Serializable {

  /**
   * Reads {@code envKey} / {@code fileKey} of {@code block}: at most one of them; when {@code
   * required}, exactly one. Returns null when neither is set and the secret is optional.
   */
  public static SecretRef parse(
      ConfigNode block, String envKey, String fileKey, boolean required, String what) {
    String env = block.string(envKey, null);
    String file = block.string(fileKey, null);
    if (env != null && file != null) {
      throw new ConfigException(
          block.path() + ": set either " + envKey + " or " + fileKey + " for " + what + ", not both.");
    }
    if (env == null && file == null) {
      if (required) {
        throw new ConfigException(
            block.path() + ": " + what + " is required; set " + envKey + " (an environment variable)"
                + " or " + fileKey + " (a file holding it).");
      }
      return null;
    }
    if (env != null && env.isBlank()) {
      throw block.invalid(envKey, env, "the name of an environment variable");
    }
    if (file != null && file.isBlank()) {
      throw block.invalid(fileKey, file, "a file path");
    }
    return new SecretRef(what, env, file);
  }

  /** The secret's value, from the process environment or the file. */
  public String resolve() {
    return resolve(System::getenv);
  }

  /**
   * The secret's value, reading environment variables through {@code environment}.
   *
   * @throws IllegalStateException naming where the secret was looked for (never its value)
   */
  public String resolve(Function<String, String> environment) {
    String value;
    if (env != null) {
      value = environment.apply(env);
      if (value == null || value.isEmpty()) {
        throw new IllegalStateException(
            "The environment variable " + env + " for " + what + " is not set or empty.");
      }
      return value;
    }
    try {
      value = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new IllegalStateException(
          "The file " + file + " for " + what + " cannot be read (" + e.getClass().getSimpleName() + ").");
    }
    if (value.isEmpty()) {
      throw new IllegalStateException("The file " + file + " for " + what + " is empty.");
    }
    return value;
  }

  @Override
  public String toString() {
    return env != null ? "env:" + env : "file:" + file;
  }
}
