package io.logbench.config;

/**
 * A run file that cannot run: the message names the key path, the value found and what was
 * expected, so the user can fix it without reading code.
 */
public final class ConfigException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  /** "{@code path}: {@code value} is not valid; expected {@code expected}." */
  public static ConfigException invalid(String path, Object value, String expected) {
    return new ConfigException(path + ": " + show(value) + " is not valid; expected " + expected + ".");
  }

  public static ConfigException missing(String path, String expected) {
    return new ConfigException(path + ": missing; expected " + expected + ".");
  }

  static String show(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof String s) {
      return "\"" + s + "\"";
    }
    return String.valueOf(value);
  }
}
