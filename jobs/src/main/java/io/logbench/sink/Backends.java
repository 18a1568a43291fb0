package io.logbench.sink;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.sink.discard.DiscardBackend;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The backend kinds a run file may name, each with the parser of its block: one registration
 * line per backend. A parser reads the block's own keys, allows {@link #keys} besides them, and
 * returns a checked {@link BackendSpec}; the delivery keys are read here by {@link
 * DeliverySettings#parse}.
 */
public final class Backends {

  /** Keys every backend block has besides its own. */
  public static final List<String> COMMON_KEYS;

  static {
    List<String> k = new ArrayList<>(List.of("kind", "name"));
    k.addAll(DeliverySettings.KEYS);
    COMMON_KEYS = List.copyOf(k);
  }

  private static final Map<String, Function<ConfigNode, BackendSpec>> PARSERS = registry();

  private static Map<String, Function<ConfigNode, BackendSpec>> registry() {
    Map<String, Function<ConfigNode, BackendSpec>> m = new LinkedHashMap<>();
    m.put(DiscardBackend.KIND, DiscardBackend::parse);
    m.put("loki", io.logbench.sink.loki.LokiBackend::parse);
    m.put("victorialogs", io.logbench.sink.victorialogs.VictoriaLogsBackend::parse);
    m.put("elasticsearch", io.logbench.sink.elasticsearch.ElasticsearchBackend::parse);
    m.put("opensearch", io.logbench.sink.elasticsearch.ElasticsearchBackend::parse);
    m.put("splunk", io.logbench.sink.splunk.SplunkBackend::parse);
    m.put("kafka", io.logbench.sink.kafka.KafkaBackend::parse);
    m.put("files", io.logbench.sink.files.FilesBackend::fromConfig);
    return Collections.unmodifiableMap(m);
  }

  private Backends() {}

  /** Registered kinds, in registration order. */
  public static List<String> kinds() {
    return List.copyOf(PARSERS.keySet());
  }

  /** The keys a backend's parser allows: the common ones and its own. */
  public static String[] keys(String... own) {
    List<String> all = new ArrayList<>(COMMON_KEYS);
    all.addAll(List.of(own));
    return all.toArray(String[]::new);
  }

  /** The name of a backend block: {@code name}, or its kind when absent. */
  public static String name(ConfigNode block, String kind) {
    String name = block.string("name", kind);
    if (!name.matches("[A-Za-z0-9._-]+")) {
      throw block.invalid("name", name, "a backend name of letters, digits, '.', '_' or '-'");
    }
    return name;
  }

  /** Reads one backend block: its kind's parser, then the delivery keys. */
  public static BackendConfig parse(ConfigNode block) {
    String kind = block.choice("kind", null, PARSERS.keySet().toArray(String[]::new));
    BackendSpec spec = PARSERS.get(kind).apply(block);
    return new BackendConfig(spec, DeliverySettings.parse(block));
  }

  /** Reads the {@code backends} list of a run file; names must be unique. */
  public static List<BackendConfig> parseList(ConfigNode top, String key) {
    List<ConfigNode> blocks = top.mappings(key);
    List<BackendConfig> out = new ArrayList<>();
    Map<String, String> seen = new HashMap<>();
    for (ConfigNode block : blocks) {
      BackendConfig b = parse(block);
      String before = seen.putIfAbsent(b.name(), block.path());
      if (before != null) {
        throw new ConfigException(block.path() + ".name: backend name \"" + b.name()
            + "\" is already used by " + before + "; give each backend a unique name.");
      }
      out.add(b);
    }
    return List.copyOf(out);
  }
}
