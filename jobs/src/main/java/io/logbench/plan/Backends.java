package io.logbench.plan;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.pipeline.Writes;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.BackendType;
import io.logbench.sink.discard.DiscardBackend;
import io.logbench.sink.elasticsearch.ElasticsearchBackend;
import io.logbench.sink.files.FilesBackend;
import io.logbench.sink.kafka.KafkaBackend;
import io.logbench.sink.logfile.LogFileBackend;
import io.logbench.sink.loki.LokiBackend;
import io.logbench.sink.otlp.OtlpBackend;
import io.logbench.sink.splunk.SplunkBackend;
import io.logbench.sink.syslog.SyslogBackend;
import io.logbench.sink.victorialogs.VictoriaLogsBackend;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The backend kinds a run file may name: one registration line per backend. Everything else
 * about a backend (its keys, kind names, capabilities) is declared in its own package.
 */
public final class Backends {

  /** Every backend type, in registration order. */
  public static final List<BackendType> TYPES = List.of(
      DiscardBackend.TYPE,
      LokiBackend.TYPE,
      VictoriaLogsBackend.TYPE,
      ElasticsearchBackend.TYPE,
      SplunkBackend.TYPE,
      KafkaBackend.TYPE,
      FilesBackend.TYPE,
      LogFileBackend.TYPE,
      SyslogBackend.TYPE,
      OtlpBackend.TYPE);

  private static final Map<String, BackendType> BY_KIND = byKind();

  private static Map<String, BackendType> byKind() {
    Map<String, BackendType> m = new LinkedHashMap<>();
    for (BackendType t : TYPES) {
      for (String kind : t.kinds()) {
        if (m.put(kind, t) != null) {
          throw new IllegalStateException("Backend kind " + kind + " is registered twice.");
        }
      }
    }
    return m;
  }

  /** The run file's list of pipelines' writes. */
  public static final String WRITES = "writes";

  private Backends() {}

  /** Every kind name a run file may use, in registration order. */
  public static List<String> kinds() {
    return List.copyOf(BY_KIND.keySet());
  }

  /** Reads one backend block with its kind's type. */
  public static BackendConfig parse(ConfigNode block) {
    String kind = block.choice("kind", null, BY_KIND.keySet().toArray(String[]::new));
    return BY_KIND.get(kind).parse(block);
  }

  /**
   * Reads the {@code backends} list of a run file, with the pipelines' {@code writes} list
   * ({@link Writes}); names must be unique, and no backend may take a write's name.
   */
  public static List<BackendConfig> parseList(ConfigNode top, String key) {
    List<BackendConfig> out = new ArrayList<>();
    Map<String, String> seen = new HashMap<>();
    Writes writes = Writes.parse(top, WRITES, Backends::parse);
    for (ConfigNode block : top.mappings(key)) {
      BackendConfig b = writes.backend(block);
      if (writes.has(b.name())) {
        throw new ConfigException(block.path() + ".name: backend name \"" + b.name() + "\" is the name of write "
            + writes.path(b.name()) + "; give each backend and write a unique name.");
      }
      String before = seen.putIfAbsent(b.name(), block.path());
      if (before != null) {
        throw new ConfigException(block.path() + ".name: backend name \"" + b.name()
            + "\" is already used by " + before + "; give each backend a unique name.");
      }
      out.add(b);
    }
    writes.checkAllNamed();
    return List.copyOf(out);
  }
}
