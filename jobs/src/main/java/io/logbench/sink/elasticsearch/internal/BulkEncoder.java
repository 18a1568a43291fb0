package io.logbench.sink.elasticsearch.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.RunContext;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.internal.TimestampWriter;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.Map;
import java.util.Set;

/**
 * Encodes a batch as a {@code _bulk} NDJSON body: per line a {@code create} action whose {@code
 * _id} is {@code <run id>-<seq>} (the line's global sequence id alone when the run has no id),
 * then the document {@code {"@timestamp", "message", "seq", "logbench_run", <stream labels>}}
 * ({@code logbench_run} only with a run id). The id is fixed within the run, so a resent line is
 * answered 409 and never stored twice, while another run's line of the same seq is a document of
 * its own. Everything but the line, its id and its time is serialized once.
 */
public final class BulkEncoder {

  /** Document fields the encoder writes itself; a stream label may not reuse them. */
  static final Set<String> RESERVED = Set.of("@timestamp", "message", "seq", RunContext.RUN_FIELD, "_id", "_index");

  private final byte[] actionPrefix;
  private final byte[] timestampPrefix;
  private final byte[] messagePrefix;
  private final byte[] seqPrefix;
  /** Per stream: {@code ,"label":"value",...}\n — the end of the document. */
  private final byte[][] streamSuffix;
  private final TimestampWriter time = new TimestampWriter();

  /**
   * @param runId the run's id, or null (then {@code _id} is the seq alone and no run field)
   */
  public BulkEncoder(String index, StreamCatalog streams, String runId) {
    // run ids are letters, digits, '.', '_' and '-' (RunContext.RUN_ID): nothing to escape
    this.actionPrefix = JsonBytes.ascii("{\"create\":{\"_index\":"
        + new String(JsonBytes.quoted(index), StandardCharsets.UTF_8) + ",\"_id\":\"" + (runId == null ? "" : runId + "-"));
    String runField = runId == null ? ""
        : "," + new String(JsonBytes.quoted(RunContext.RUN_FIELD), StandardCharsets.UTF_8) + ":"
            + new String(JsonBytes.quoted(runId), StandardCharsets.UTF_8);
    this.timestampPrefix = JsonBytes.ascii("\"}}\n{\"@timestamp\":\"");
    this.messagePrefix = JsonBytes.ascii("\",\"message\":\"");
    this.seqPrefix = JsonBytes.ascii("\",\"seq\":");
    this.streamSuffix = new byte[streams.size()][];
    for (int s = 0; s < streams.size(); s++) {
      JsonBytes suffix = new JsonBytes(64);
      suffix.append(runField.getBytes(StandardCharsets.UTF_8));
      for (Map.Entry<String, String> label : streams.labels(s).entrySet()) {
        if (RESERVED.contains(label.getKey())) {
          throw new IllegalArgumentException(
              "The stream label " + label.getKey() + " clashes with a document field of the same name.");
        }
        suffix.append((byte) ',').append(JsonBytes.quoted(label.getKey())).append((byte) ':')
            .append(JsonBytes.quoted(label.getValue()));
      }
      suffix.append((byte) '}').append((byte) '\n');
      streamSuffix[s] = suffix.toByteArray();
    }
  }

  /** The body for lines of {@code batch} whose index is set in {@code lines} (all when null). */
  public byte[] encode(LineBatch batch, BitSet lines) {
    JsonBytes out = new JsonBytes(batch.byteSize() + batch.count() * 160);
    encode(batch, lines, out);
    return out.toByteArray();
  }

  /** Writes the body for lines of {@code batch} set in {@code lines} (all when null) into {@code out}, cleared first. */
  public void encode(LineBatch batch, BitSet lines, JsonBytes out) {
    out.clear();
    int n = batch.count();
    for (int k = lines == null ? 0 : lines.nextSetBit(0); k >= 0 && k < n;
        k = lines == null ? k + 1 : lines.nextSetBit(k + 1)) {
      long seq = batch.seq(k);
      out.append(actionPrefix).appendLong(seq).append(timestampPrefix);
      time.rfc3339(out, batch.timestampNanos(k));
      out.append(messagePrefix).appendLine(batch, k)
          .append(seqPrefix).appendLong(seq).append(streamSuffix[batch.stream(k)]);
    }
  }
}
