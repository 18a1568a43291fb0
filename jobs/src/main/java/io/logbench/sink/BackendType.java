package io.logbench.sink;

import io.logbench.config.ConfigNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A backend kind as a run file names it: its kind names (an alias such as {@code opensearch} for
 * {@code elasticsearch} shares the parser), the name a block gets without {@code name}, its own
 * keys, and the parser of those keys. Declared once per backend (its {@code TYPE} constant) and
 * registered with one line; {@link #parse} reads the keys every block shares ({@link
 * CommonSettings}) and rejects any key neither lists.
 *
 * @param kinds the kind names, the first being the main one
 * @param defaultName the backend's name when the block has no {@code name}
 * @param keys the keys of the kind's own
 * @param parser reads the kind's own keys into its spec
 */
public record BackendType(List<String> kinds, String defaultName, List<String> keys, Parser parser) {

  /** Reads a block's own keys; the common ones are read already. */
  @FunctionalInterface
  public interface Parser {
    BackendSpec parse(ConfigNode block, CommonSettings common);
  }

  public BackendType {
    kinds = List.copyOf(kinds);
    keys = List.copyOf(keys);
    Objects.requireNonNull(defaultName, "defaultName");
    Objects.requireNonNull(parser, "parser");
    if (kinds.isEmpty()) {
      throw new IllegalArgumentException("A backend type needs at least one kind name.");
    }
    for (String k : keys) {
      if (CommonSettings.KEYS.contains(k)) {
        throw new IllegalArgumentException("Key " + k + " of backend kind " + kinds.get(0)
            + " is one every backend has; it must not be listed as the kind's own.");
      }
    }
  }

  /** A type of one kind whose default name is the kind. */
  public static BackendType of(String kind, List<String> keys, Parser parser) {
    return new BackendType(List.of(kind), kind, keys, parser);
  }

  /** The main kind name. */
  public String kind() {
    return kinds.get(0);
  }

  /** Every key a block of this kind may have: the common ones, then its own. */
  public List<String> allowedKeys() {
    List<String> all = new ArrayList<>(CommonSettings.KEYS);
    all.addAll(keys);
    return all;
  }

  /** Reads a block of this kind: rejects unknown keys, reads the common keys, then its own. */
  public BackendConfig parse(ConfigNode block) {
    block.allowOnly(allowedKeys().toArray(String[]::new));
    String kind = block.choice("kind", null, kinds.toArray(String[]::new));
    CommonSettings common = CommonSettings.parse(block, kind, defaultName);
    return new BackendConfig(parser.parse(block, common), common);
  }
}
