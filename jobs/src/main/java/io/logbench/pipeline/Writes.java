package io.logbench.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.DeliverySettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Reads a run file's pipelines: its top-level {@code writes:} list (each entry a backend block of
 * any kind, the one place logbench writes to: a file an agent tails, syslog, OTLP, or any sender
 * into an agent) and, in a backend block, {@code write: <name>} naming one of them or {@code
 * write: {kind: ...}} inline, with {@code lag}. A block with {@code write:} only counts: the
 * delivery keys belong to its write. Several blocks may name one write, which logbench writes
 * once; a write no block names is an error.
 */
public final class Writes {

  /** The keys a count block has besides its kind's. */
  public static final List<String> COUNT_KEYS = List.of("write", "lag");

  private final Map<String, BackendConfig> byName;
  private final Map<String, String> paths;
  private final Set<String> named = new TreeSet<>();
  private final Function<ConfigNode, BackendConfig> parser;

  private Writes(Map<String, BackendConfig> byName, Map<String, String> paths,
      Function<ConfigNode, BackendConfig> parser) {
    this.byName = byName;
    this.paths = paths;
    this.parser = parser;
  }

  /** The {@code key} list of {@code top} ({@code writes}), each read by {@code parser}. */
  public static Writes parse(ConfigNode top, String key, Function<ConfigNode, BackendConfig> parser) {
    Map<String, BackendConfig> byName = new LinkedHashMap<>();
    Map<String, String> paths = new LinkedHashMap<>();
    for (ConfigNode block : top.mappings(key)) {
      if (block.has("write")) {
        throw new ConfigException(block.path() + ".write: a write cannot go through another write; expected"
            + " the block of where logbench writes (such as kind: file).");
      }
      BackendConfig w = parser.apply(block);
      String before = paths.putIfAbsent(w.name(), block.path());
      if (before != null) {
        throw new ConfigException(block.path() + ".name: write name \"" + w.name() + "\" is already used by "
            + before + "; give each write a unique name.");
      }
      byName.put(w.name(), w);
    }
    return new Writes(byName, paths, parser);
  }

  /** Whether {@code name} is a write's (so no backend may take it). */
  public boolean has(String name) {
    return byName.containsKey(name);
  }

  /** Where write {@code name} is written in the run file. */
  public String path(String name) {
    return paths.get(name);
  }

  /**
   * Reads a backend block: as it is ({@code parser}) without {@code write:}; with it, the block's
   * backend as a count behind its write ({@link PipelineSpec}), delivered with the write's
   * settings.
   */
  public BackendConfig backend(ConfigNode block) {
    if (!block.has("write")) {
      if (block.has("lag")) {
        throw new ConfigException(block.path() + ".lag: only a block with write: counts what an agent delivered"
            + " late; expected write: as well, or no lag.");
      }
      return parser.apply(block);
    }
    for (String k : DeliverySettings.KEYS) {
      if (block.has(k)) {
        throw new ConfigException(block.path() + "." + k + ": a block with write: only counts; how lines are"
            + " delivered is its write's to say: expected " + k + " in the write's block.");
      }
    }
    Duration lag = block.duration("lag", PipelineSpec.DEFAULT_LAG, false);
    JsonNode w = block.raw().get("write");
    BackendConfig write = null;
    if (w.isTextual()) {
      write = byName.get(w.asText());
      if (write == null) {
        throw block.invalid("write", w.asText(), byName.isEmpty()
            ? "the name of an entry of the run file's writes: list, which has none (or an inline write such as"
                + " {kind: file, path: app.log})"
            : "the name of an entry of the run file's writes: list (" + String.join(", ", byName.keySet()) + ")");
      }
      named.add(write.name());
    } else if (!w.isObject()) {
      throw block.invalid("write", w.toString(), "the name of an entry of writes: or an inline write block"
          + " such as {kind: file, path: app.log}");
    }
    ObjectNode own = ((ObjectNode) block.raw()).deepCopy();
    COUNT_KEYS.forEach(own::remove);
    BackendConfig count = parser.apply(new ConfigNode(own, block.path()));
    if (write == null) {
      ObjectNode inline = ((ObjectNode) w).deepCopy();
      if (!inline.has("name")) {
        inline.put("name", count.name()); // one count: the write goes by the block's name
      }
      if (inline.has("write")) {
        throw new ConfigException(block.path() + ".write.write: a write cannot go through another write.");
      }
      write = parser.apply(new ConfigNode(inline, block.path() + ".write"));
      if (byName.containsKey(write.name())) {
        throw new ConfigException(block.path() + ".write.name: \"" + write.name() + "\" is the name of "
            + paths.get(write.name()) + "; give the inline write a name of its own.");
      }
    }
    if (count.spec().write() != null) {
      throw new IllegalStateException("Backend " + count.name() + " has a write already.");
    }
    PipelineSpec spec = new PipelineSpec(count.spec(), write, lag);
    if (spec.countUnavailable() != null) {
      throw new ConfigException(block.path() + ".write: backend " + count.name() + " cannot count behind a write: "
          + spec.countUnavailable() + "; expected a count block of kind loki, victorialogs or elasticsearch.");
    }
    return new BackendConfig(spec, count.common().withDelivery(write.delivery()));
  }

  /** Fails on a write no backend block names. */
  public void checkAllNamed() {
    for (String name : byName.keySet()) {
      if (!named.contains(name)) {
        throw new ConfigException(paths.get(name) + ": write \"" + name + "\" is named by no backend block's write:;"
            + " expected at least one block that counts where its lines arrive (write: " + name + ").");
      }
    }
  }
}
