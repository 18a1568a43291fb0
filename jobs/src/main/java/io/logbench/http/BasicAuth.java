package io.logbench.http;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.config.SecretRef;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * A backend's basic-auth user and where its password comes from (a {@link SecretRef}: an
 * environment variable or a file), never the password itself: it is read when a sender or reader
 * opens and only ever lives in a request header.
 *
 * @param user user name
 * @param password where the password is
 */
public record BasicAuth(String user, SecretRef password) implements Serializable {

  public BasicAuth {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
  }

  /** Reads {@code user}, {@code password_env} and {@code password_file}; null when none is set. */
  public static BasicAuth parse(ConfigNode block) {
    return parse(block, "user", "password_env", "password_file");
  }

  /**
   * Reads a user key and its password's env/file keys (e.g. {@code search_user}, {@code
   * search_password_env}, {@code search_password_file}); null when none is set, an error naming
   * the missing half when only one is.
   */
  public static BasicAuth parse(ConfigNode block, String userKey, String envKey, String fileKey) {
    String user = block.string(userKey, null);
    String what = "user".equals(userKey) ? "the password" : "the " + userKey.replace("_user", "") + " password";
    SecretRef password = SecretRef.parse(block, envKey, fileKey, false, what);
    if (user == null && password == null) {
      return null;
    }
    String at = block.path().isEmpty() ? "" : block.path() + ".";
    if (user == null || user.isEmpty()) {
      throw ConfigException.missing(at + userKey, "a user name, since " + envKey + "/" + fileKey + " is set");
    }
    if (password == null) {
      throw ConfigException.missing(at + envKey, envKey + " or " + fileKey + ", since " + userKey + " is set");
    }
    return new BasicAuth(user, password);
  }

  /**
   * The {@code Authorization} header value; fails with a message naming the variable or file
   * (never the password) when it cannot be read.
   */
  public String header(String backend) {
    String secret;
    try {
      secret = password.resolve();
    } catch (IllegalStateException e) {
      throw new IllegalStateException("Backend '" + backend + "': " + e.getMessage(), e);
    }
    String pair = user + ":" + secret;
    return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return "BasicAuth[user=" + user + ", password from " + password + "]";
  }
}
