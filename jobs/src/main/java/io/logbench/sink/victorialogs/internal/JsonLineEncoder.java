package io.logbench.sink.victorialogs.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.RunContext;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.internal.TimestampWriter;
import java.util.Map;

/**
 * Writes a batch as VictoriaLogs JSON lines, {@code {"_time":"2021-05-01T03:00:00.000000001Z",
 * "_msg":"<line>",<labels>,"logbench_run":"<run id>"}}, one a line, from the batch's bytes
 * ({@code logbench_run} only when the run has an id); each stream's suffix is encoded once and the
 * date part of {@code _time} once per second.
 */
public final class JsonLineEncoder {

  // the pieces of every row as bytes: one copy each, not a loop over a String's chars
  private static final byte[] TIME = JsonBytes.ascii("{\"_time\":\"");
  private static final byte[] MSG = JsonBytes.ascii("\",\"_msg\":\"");

  /** Per stream, what follows a row's line: its closing quote, the labels, the run's id, the end. */
  private final byte[][] streamSuffix;
  private final TimestampWriter timestamps = new TimestampWriter();

  /**
   * @param runId the run's id, written as the field {@code logbench_run} of every row, or null for
   *     none
   */
  public JsonLineEncoder(StreamCatalog streams, String runId) {
    streamSuffix = new byte[streams.size()][];
    for (int i = 0; i < streamSuffix.length; i++) {
      JsonBytes b = new JsonBytes(128).append((byte) '"');
      for (Map.Entry<String, String> e : streams.labels(i).entrySet()) {
        if (e.getKey().equals(RunContext.RUN_FIELD)) {
          throw new IllegalArgumentException(
              "The stream label " + e.getKey() + " clashes with the field that carries the run's id.");
        }
        b.append((byte) ',').append(JsonBytes.quoted(e.getKey())).append((byte) ':');
        b.append(JsonBytes.quoted(e.getValue()));
      }
      if (runId != null) {
        b.append((byte) ',').append(JsonBytes.quoted(RunContext.RUN_FIELD)).append((byte) ':')
            .append(JsonBytes.quoted(runId));
      }
      b.appendAscii("}\n");
      streamSuffix[i] = b.toByteArray();
    }
  }

  /** Writes the body of {@code batch} into {@code out} (cleared first). */
  public void encode(LineBatch batch, JsonBytes out) {
    out.clear();
    for (int k = 0; k < batch.count(); k++) {
      long ns = batch.timestampNanos(k);
      out.append(TIME);
      timestamps.rfc3339(out, ns);
      out.append(MSG);
      out.appendLine(batch, k);
      out.append(streamSuffix[batch.stream(k)]);
    }
  }
}
