package io.logbench.sink.loki.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.http.GrowableBytes;
import java.util.List;
import java.util.Map;

/**
 * Writes a batch as Loki's JSON push body, {@code {"streams":[{"stream":{..},"values":[["<ns>",
 * "<line>"],..]},..]}}, straight from the batch's bytes; each stream's label object is encoded
 * once.
 */
public final class LokiJsonEncoder {

  private final byte[][] streamPrefix;
  private final StreamGroups groups;

  public LokiJsonEncoder(List<Map<String, String>> streamLabels) {
    streamPrefix = new byte[streamLabels.size()][];
    for (int i = 0; i < streamPrefix.length; i++) {
      GrowableBytes b = new GrowableBytes(128);
      b.ascii("{\"stream\":{");
      boolean first = true;
      for (Map.Entry<String, String> e : streamLabels.get(i).entrySet()) {
        if (!first) {
          b.put((byte) ',');
        }
        first = false;
        b.put(GrowableBytes.jsonString(e.getKey())).put((byte) ':');
        b.put(GrowableBytes.jsonString(e.getValue()));
      }
      b.ascii("},\"values\":[");
      streamPrefix[i] = b.toByteArray();
    }
    groups = new StreamGroups(streamPrefix.length);
  }

  /** Writes the body of {@code batch} into {@code out} (cleared first). */
  public void encode(LineBatch batch, GrowableBytes out) {
    out.clear();
    groups.group(batch);
    byte[] data = batch.data();
    out.ascii("{\"streams\":[");
    for (int g = 0; g < groups.groups(); g++) {
      if (g > 0) {
        out.put((byte) ',');
      }
      out.put(streamPrefix[groups.stream(g)]);
      for (int i = groups.start(g); i < groups.end(g); i++) {
        int k = groups.line(i);
        if (i > groups.start(g)) {
          out.put((byte) ',');
        }
        out.ascii("[\"").decimal(batch.timestampNanos(k)).ascii("\",\"");
        out.jsonEscaped(data, batch.start(k), batch.length(k));
        out.ascii("\"]");
      }
      out.ascii("]}");
    }
    out.ascii("]}");
  }
}
