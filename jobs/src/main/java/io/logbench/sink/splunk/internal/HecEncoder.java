package io.logbench.sink.splunk.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.RunContext;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.internal.TimestampWriter;
import java.util.Map;

/**
 * Encodes a batch as concatenated HEC events {@code {"time", "host", "source", "sourcetype",
 * "index", "event", "fields": {<stream labels>, "logbench_run", "seq"}}}, the metadata serialized
 * once. {@code fields} are indexed fields (tstats can filter on them); {@code logbench_run}, the
 * run's id, is written only when the run has one.
 *
 * <p>{@code time} is epoch seconds with exactly six fraction digits, the line's time truncated to
 * the microsecond. Splunk keeps at most microseconds of {@code time}, and the line's distinct
 * nanosecond (up to 999,999 ns into its millisecond) would be rounded away by Splunk at best, and
 * at worst rounded up: {@code .999999999} of a window's last second read as the next second puts
 * the line in the next window. Truncating here keeps every line in its own millisecond, so in its
 * window, whatever Splunk does with finer digits.
 */
public final class HecEncoder {

  private static final byte[] TIME = JsonBytes.ascii("{\"time\":");
  private static final byte[] EVENT = JsonBytes.ascii("\"event\":\"");
  private static final byte[] FIELDS = JsonBytes.ascii("\",\"fields\":{");
  private static final byte[] SEQ = JsonBytes.ascii("\"seq\":\"");
  private static final byte[] END = JsonBytes.ascii("\"}}");

  /** {@code ,"host":...,} : the metadata between time and event, with both commas. */
  private final byte[] metadata;
  /** Per stream: {@code "label":"value",} for each label. */
  private final byte[][] streamFields;

  /**
   * @param runId the run's id, the indexed field {@code logbench_run} of every event, or null for
   *     none
   */
  public HecEncoder(StreamCatalog streams, String host, String source, String sourcetype, String index,
      String runId) {
    JsonBytes m = new JsonBytes(128);
    m.append((byte) ',');
    field(m, "host", host);
    field(m, "source", source);
    field(m, "sourcetype", sourcetype);
    field(m, "index", index);
    this.metadata = m.toByteArray();
    this.streamFields = new byte[streams.size()][];
    for (int s = 0; s < streams.size(); s++) {
      JsonBytes f = new JsonBytes(64);
      for (Map.Entry<String, String> label : streams.labels(s).entrySet()) {
        if (label.getKey().equals("seq") || label.getKey().equals(RunContext.RUN_FIELD)) {
          throw new IllegalArgumentException(
              "The stream label " + label.getKey() + " clashes with the field of the same name of every event.");
        }
        f.append(JsonBytes.quoted(label.getKey())).append((byte) ':').append(JsonBytes.quoted(label.getValue()))
            .append((byte) ',');
      }
      if (runId != null) {
        f.append(JsonBytes.quoted(RunContext.RUN_FIELD)).append((byte) ':').append(JsonBytes.quoted(runId))
            .append((byte) ',');
      }
      streamFields[s] = f.toByteArray();
    }
  }

  private static void field(JsonBytes out, String name, String value) {
    if (value != null) {
      out.append(JsonBytes.quoted(name)).append((byte) ':').append(JsonBytes.quoted(value)).append((byte) ',');
    }
  }

  public byte[] encode(LineBatch batch) {
    JsonBytes out = new JsonBytes(batch.byteSize() + batch.count() * (metadata.length + 120));
    encode(batch, out);
    return out.toByteArray();
  }

  /** Writes the body of {@code batch} into {@code out}, cleared first. */
  public void encode(LineBatch batch, JsonBytes out) {
    out.clear();
    for (int k = 0; k < batch.count(); k++) {
      out.append(TIME);
      TimestampWriter.epochSecondsMicros(out, batch.timestampNanos(k));
      out.append(metadata).append(EVENT).appendLine(batch, k)
          .append(FIELDS).append(streamFields[batch.stream(k)]).append(SEQ).appendLong(batch.seq(k)).append(END);
    }
  }
}
