package io.logbench.sink.victorialogs.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.http.GrowableBytes;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Map;

/**
 * Writes a batch as VictoriaLogs JSON lines, {@code {"_time":"2021-05-01T03:00:00.000000001Z",
 * "_msg":"<line>",<labels>}}, one a line, from the batch's bytes; each stream's label suffix is
 * encoded once and the date part of {@code _time} once per second.
 */
public final class JsonLineEncoder {

  private final byte[][] streamSuffix;
  private long cachedSecond = Long.MIN_VALUE;
  private byte[] cachedPrefix;

  public JsonLineEncoder(StreamCatalog streams) {
    streamSuffix = new byte[streams.size()][];
    for (int i = 0; i < streamSuffix.length; i++) {
      GrowableBytes b = new GrowableBytes(128);
      for (Map.Entry<String, String> e : streams.labels(i).entrySet()) {
        b.put((byte) ',').put(GrowableBytes.jsonString(e.getKey())).put((byte) ':');
        b.put(GrowableBytes.jsonString(e.getValue()));
      }
      b.ascii("}\n");
      streamSuffix[i] = b.toByteArray();
    }
  }

  /** Writes the body of {@code batch} into {@code out} (cleared first). */
  public void encode(LineBatch batch, GrowableBytes out) {
    out.clear();
    byte[] data = batch.data();
    for (int k = 0; k < batch.count(); k++) {
      long ns = batch.timestampNanos(k);
      out.ascii("{\"_time\":\"");
      time(ns, out);
      out.ascii("\",\"_msg\":\"");
      out.jsonEscaped(data, batch.start(k), batch.length(k));
      out.put((byte) '"');
      out.put(streamSuffix[batch.stream(k)]);
    }
  }

  /** RFC 3339 in UTC with all nine fraction digits. */
  private void time(long ns, GrowableBytes out) {
    long second = Math.floorDiv(ns, 1_000_000_000L);
    if (second != cachedSecond) {
      cachedSecond = second;
      LocalDateTime t = LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC);
      cachedPrefix = String.format("%04d-%02d-%02dT%02d:%02d:%02d.", t.getYear(), t.getMonthValue(),
          t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond()).getBytes();
    }
    out.put(cachedPrefix).padded(Math.floorMod(ns, 1_000_000_000L), 9).put((byte) 'Z');
  }
}
