package io.logbench.sink.otlp.internal;

import com.google.protobuf.CodedOutputStream;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.internal.JsonBytes;
import io.logbench.sink.internal.StreamGroups;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a batch as an OTLP {@code ExportLogsServiceRequest} (opentelemetry-proto, logs/v1 and
 * collector/logs/v1), protobuf, with protobuf-java's {@link CodedOutputStream}: one {@code
 * ResourceLogs} (field 1) per stream of the batch, its {@code Resource} (1) carrying the stream's
 * labels and the fixed resource attributes as string attributes (1, {@code KeyValue {key = 1,
 * value = 2: AnyValue {string_value = 1}}}), one {@code ScopeLogs} (2) with the scope {@code
 * logbench} (1: {@code InstrumentationScope {name = 1}}) and a {@code LogRecord} (2) per line:
 * {@code time_unix_nano} (1, fixed64) and {@code observed_time_unix_nano} (11, fixed64) the
 * line's distinct nanosecond, {@code body} (5) the line as a string, and the record attributes
 * (6), such as the run's id. Sizes are computed first, so the message is written in one pass.
 */
public final class OtlpLogsEncoder {

  private static final byte[] SCOPE = "logbench".getBytes(StandardCharsets.UTF_8);

  private final byte[][] resources;
  private final byte[] recordAttributes;
  private final StreamGroups groups;
  private final byte[] scopeField;
  private int[] recordSize = new int[128];

  /**
   * @param streamLabels each stream's labels, by stream id, as resource attributes
   * @param resourceAttributes attributes every resource gets besides its labels (such as {@code
   *     service.name}); a label of the same name wins
   * @param attributes attributes of every log record (such as {@code logbench_run})
   */
  public OtlpLogsEncoder(List<Map<String, String>> streamLabels, Map<String, String> resourceAttributes,
      Map<String, String> attributes) {
    resources = new byte[streamLabels.size()][];
    for (int i = 0; i < resources.length; i++) {
      Map<String, String> all = new LinkedHashMap<>(resourceAttributes);
      all.putAll(streamLabels.get(i));
      resources[i] = message(keyValues(1, all));
    }
    recordAttributes = keyValues(6, attributes);
    groups = new StreamGroups(resources.length);
    scopeField = field(1, message(field(1, SCOPE)));
  }

  /** Writes the request for {@code batch} into {@code out} (cleared first). */
  public void encode(LineBatch batch, JsonBytes out) {
    out.clear();
    groups.group(batch);
    int n = batch.count();
    if (recordSize.length < n) {
      recordSize = new int[Math.max(n, recordSize.length * 2)];
    }
    int total = 0;
    int[] scopeSizes = new int[groups.groups()];
    for (int g = 0; g < groups.groups(); g++) {
      int scope = scopeField.length;
      for (int i = groups.start(g); i < groups.end(g); i++) {
        int k = groups.line(i);
        recordSize[k] = recordSize(batch, k);
        scope += lenField(2, recordSize[k]);
      }
      scopeSizes[g] = scope;
      total += lenField(1, resourceLogsSize(g, scope));
    }
    byte[] dst = out.reserve(total);
    CodedOutputStream o = CodedOutputStream.newInstance(dst, 0, total);
    try {
      for (int g = 0; g < groups.groups(); g++) {
        byte[] resource = resources[groups.stream(g)];
        o.writeTag(1, 2);
        o.writeUInt32NoTag(resourceLogsSize(g, scopeSizes[g]));
        o.writeByteArray(1, resource);
        o.writeTag(2, 2);
        o.writeUInt32NoTag(scopeSizes[g]);
        o.writeRawBytes(scopeField);
        for (int i = groups.start(g); i < groups.end(g); i++) {
          int k = groups.line(i);
          o.writeTag(2, 2);
          o.writeUInt32NoTag(recordSize[k]);
          long ns = batch.timestampNanos(k);
          o.writeFixed64(1, ns);
          o.writeTag(5, 2);
          o.writeUInt32NoTag(lenField(1, batch.length(k)));
          o.writeTag(1, 2);
          o.writeUInt32NoTag(batch.length(k));
          o.writeRawBytes(batch.rawData(), batch.start(k), batch.length(k));
          o.writeRawBytes(recordAttributes);
          o.writeFixed64(11, ns);
        }
      }
      o.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException("An OTLP request did not fit the size computed for it.", e);
    }
    out.size(total);
  }

  private int resourceLogsSize(int group, int scopeSize) {
    return lenField(1, resources[groups.stream(group)].length) + lenField(2, scopeSize);
  }

  private int recordSize(LineBatch batch, int k) {
    return 9 + lenField(5, lenField(1, batch.length(k))) + recordAttributes.length + 9;
  }

  private static int lenField(int field, int length) {
    return CodedOutputStream.computeTagSize(field) + CodedOutputStream.computeUInt32SizeNoTag(length) + length;
  }

  /** {@code attributes} as repeated {@code KeyValue} fields numbered {@code field}. */
  static byte[] keyValues(int field, Map<String, String> attributes) {
    JsonBytes all = new JsonBytes(64);
    attributes.forEach((k, v) -> {
      byte[] value = message(field(1, v.getBytes(StandardCharsets.UTF_8)));
      byte[] kv = message(concat(field(1, k.getBytes(StandardCharsets.UTF_8)), field(2, value)));
      all.append(field(field, kv));
    });
    return all.toByteArray();
  }

  /** A length-delimited field. */
  static byte[] field(int field, byte[] value) {
    byte[] out = new byte[lenField(field, value.length)];
    CodedOutputStream o = CodedOutputStream.newInstance(out);
    try {
      o.writeByteArray(field, value);
      o.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The fields of a message (already encoded), as its bytes. */
  private static byte[] message(byte[] fields) {
    return fields;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** The label maps of every stream, by id, for the encoder. */
  public static List<Map<String, String>> labels(io.logbench.dataset.StreamCatalog streams) {
    List<Map<String, String>> out = new ArrayList<>();
    for (int i = 0; i < streams.size(); i++) {
      out.add(streams.labels(i));
    }
    return out;
  }
}
