package io.logbench.sink.kafka.internal;

import io.logbench.dataset.StreamCatalog;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Record keys of a dataset's streams, rendered once per stream as {@code {name="value",...}} in
 * the catalog's label order, so every line of a stream lands in the same partition.
 */
public final class StreamKeys {

  private final byte[][] keys;

  private StreamKeys(byte[][] keys) {
    this.keys = keys;
  }

  public static StreamKeys of(StreamCatalog streams) {
    byte[][] keys = new byte[streams.size()][];
    for (int id = 0; id < keys.length; id++) {
      keys[id] = render(streams.labels(id));
    }
    return new StreamKeys(keys);
  }

  /** The key of stream {@code id}; shared, callers must not change it. */
  public byte[] key(int id) {
    return keys[id];
  }

  /** {@code {a="x",b="y"}} in the map's iteration order, quotes and backslashes escaped. */
  public static byte[] render(Map<String, String> labels) {
    StringBuilder sb = new StringBuilder().append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : labels.entrySet()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append(e.getKey()).append("=\"");
      String v = e.getValue();
      for (int i = 0; i < v.length(); i++) {
        char c = v.charAt(i);
        if (c == '"' || c == '\\') {
          sb.append('\\');
        }
        sb.append(c);
      }
      sb.append('"');
    }
    return sb.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }
}
