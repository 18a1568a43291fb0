package io.logbench.sink.http;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * Where a backend's basic-auth password comes from (an environment variable or a file), never the
 * password itself: it is read when a sender opens and only ever lives in a request header.
 *
 * @param user user name
 * @param passwordEnv name of the environment variable holding the password, or null
 * @param passwordFile path of the file holding the password (trailing newline dropped), or null
 */
public record BasicAuth(String user, String passwordEnv, String passwordFile) implements Serializable {

  /** Reads {@code user}, {@code password_env} and {@code password_file}; null when none is set. */
  public static BasicAuth parse(ConfigNode block) {
    String user = block.string("user", null);
    String env = block.string("password_env", null);
    String file = block.string("password_file", null);
    if (user == null && env == null && file == null) {
      return null;
    }
    String at = block.path().isEmpty() ? "" : block.path() + ".";
    if (user == null || user.isEmpty()) {
      throw ConfigException.missing(at + "user", "a user name, since a password is configured");
    }
    if (env != null && file != null) {
      throw new ConfigException(
          at + "password_env: set either password_env or password_file, not both.");
    }
    if (env == null && file == null) {
      throw ConfigException.missing(
          at + "password_env", "password_env or password_file, since a user is configured");
    }
    return new BasicAuth(user, env, file);
  }

  /**
   * The {@code Authorization} header value; fails with a message naming the variable or file
   * (never the password) when it cannot be read.
   */
  public String header(String backend) {
    String password;
    if (passwordEnv != null) {
      password = System.getenv(passwordEnv);
      if (password == null) {
        throw new IllegalStateException(
            "Backend '" + backend + "': the environment variable " + passwordEnv
                + " named by password_env is not set.");
      }
    } else {
      try {
        password = Files.readString(Path.of(passwordFile), StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new IllegalStateException(
            "Backend '" + backend + "': cannot read the password file " + passwordFile
                + " named by password_file (" + e.getClass().getSimpleName() + ").");
      }
    }
    String pair = user + ":" + password;
    return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return "BasicAuth[user=" + user + ", password from "
        + (passwordEnv != null ? "env " + passwordEnv : "file " + passwordFile) + "]";
  }
}
