package io.logbench.sink;

import io.logbench.config.ConfigNode;

/** Reads one backend block through its type, as the registry does, for backend tests. */
public final class Specs {

  private Specs() {}

  /** The spec of {@code block}, read by {@code type} (common keys included). */
  @SuppressWarnings("unchecked")
  public static <T extends BackendSpec> T parse(BackendType type, ConfigNode block) {
    return (T) type.parse(block).spec();
  }
}
