package io.logbench.sink.victorialogs.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.internal.TimestampWriter;
import java.util.Map;

/**
 * Writes a batch as VictoriaLogs JSON lines, {@code {"_time":"2021-05-01T03:00:00.000000001Z",
 * "_msg":"<line>",<labels>}}, one a line, from the batch's bytes; each stream's label suffix is
 * encoded once and the date part of {@code _time} once per second.
 */
public final class JsonLineEncoder {

  private final byte[][] streamSuffix;
  private final TimestampWriter timestamps = new TimestampWriter();

  public JsonLineEncoder(StreamCatalog streams) {
    streamSuffix = new byte[streams.size()][];
    for (int i = 0; i < streamSuffix.length; i++) {
      JsonBytes b = new JsonBytes(128);
      for (Map.Entry<String, String> e : streams.labels(i).entrySet()) {
        b.append((byte) ',').append(JsonBytes.quoted(e.getKey())).append((byte) ':');
        b.append(JsonBytes.quoted(e.getValue()));
      }
      b.appendAscii("}\n");
      streamSuffix[i] = b.toByteArray();
    }
  }

  /** Writes the body of {@code batch} into {@code out} (cleared first). */
  public void encode(LineBatch batch, JsonBytes out) {
    out.clear();
    byte[] data = batch.data();
    for (int k = 0; k < batch.count(); k++) {
      long ns = batch.timestampNanos(k);
      out.appendAscii("{\"_time\":\"");
      timestamps.rfc3339(out, ns);
      out.appendAscii("\",\"_msg\":\"");
      out.appendEscaped(data, batch.start(k), batch.length(k));
      out.append((byte) '"');
      out.append(streamSuffix[batch.stream(k)]);
    }
  }
}
