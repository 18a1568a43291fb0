package io.logbench.sink.loki.internal;

import io.logbench.sink.internal.StreamGroups;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.RunContext;
import io.logbench.sink.internal.JsonBytes;
import java.util.List;
import java.util.Map;

/**
 * Writes a batch as Loki's JSON push body, {@code {"streams":[{"stream":{..},"values":[["<ns>",
 * "<line>"],..]},..]}}, straight from the batch's bytes; each stream's label object is encoded
 * once. With a run id as structured metadata every entry is {@code ["<ns>", "<line>",
 * {"logbench_run": "<id>"}]} (Loki 3.x: a JSON object of string keys and values after the line).
 */
public final class LokiJsonEncoder {

  private final byte[][] streamPrefix;
  private final StreamGroups groups;
  // an entry's pieces as bytes: one copy each, not a loop over a String's chars
  private static final byte[] ENTRY = JsonBytes.ascii("[\"");
  private static final byte[] LINE = JsonBytes.ascii("\",\"");

  /** What follows an entry's line: its closing quote, the structured metadata, the bracket. */
  private final byte[] entryEnd;

  /**
   * @param runMetadata the run's id as the structured metadata {@code logbench_run} of every
   *     entry, or null for none
   */
  public LokiJsonEncoder(List<Map<String, String>> streamLabels, String runMetadata) {
    JsonBytes end = new JsonBytes(64).append((byte) '"');
    if (runMetadata != null) {
      end.appendAscii(",{").append(JsonBytes.quoted(RunContext.RUN_FIELD)).append((byte) ':')
          .append(JsonBytes.quoted(runMetadata)).append((byte) '}');
    }
    entryEnd = end.append((byte) ']').toByteArray();
    streamPrefix = new byte[streamLabels.size()][];
    for (int i = 0; i < streamPrefix.length; i++) {
      JsonBytes b = new JsonBytes(128);
      b.appendAscii("{\"stream\":{");
      boolean first = true;
      for (Map.Entry<String, String> e : streamLabels.get(i).entrySet()) {
        if (!first) {
          b.append((byte) ',');
        }
        first = false;
        b.append(JsonBytes.quoted(e.getKey())).append((byte) ':');
        b.append(JsonBytes.quoted(e.getValue()));
      }
      b.appendAscii("},\"values\":[");
      streamPrefix[i] = b.toByteArray();
    }
    groups = new StreamGroups(streamPrefix.length);
  }

  /** Writes the body of {@code batch} into {@code out} (cleared first). */
  public void encode(LineBatch batch, JsonBytes out) {
    encode(batch, null, out);
  }

  /** Writes the lines of {@code batch} set in {@code lines} (every line when null) into {@code out} (cleared first). */
  public void encode(LineBatch batch, java.util.BitSet lines, JsonBytes out) {
    out.clear();
    groups.group(batch, lines);
    out.appendAscii("{\"streams\":[");
    for (int g = 0; g < groups.groups(); g++) {
      if (g > 0) {
        out.append((byte) ',');
      }
      out.append(streamPrefix[groups.stream(g)]);
      for (int i = groups.start(g); i < groups.end(g); i++) {
        int k = groups.line(i);
        if (i > groups.start(g)) {
          out.append((byte) ',');
        }
        out.append(ENTRY).appendLong(batch.timestampNanos(k)).append(LINE);
        out.appendLine(batch, k);
        out.append(entryEnd);
      }
      out.appendAscii("]}");
    }
    out.appendAscii("]}");
  }
}
