package io.logbench.sink.loki.internal;

import io.logbench.sink.internal.StreamGroups;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.RunContext;
import io.logbench.sink.internal.JsonBytes;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Writes a batch as a {@code logproto.PushRequest} (grafana/loki pkg/push/push.proto) by hand:
 * {@code streams = 1} of StreamAdapter {@code {labels = 1, entries = 2}}, EntryAdapter {@code
 * {timestamp = 1 (google.protobuf.Timestamp {seconds = 1, nanos = 2}), line = 2,
 * structuredMetadata = 3 (repeated LabelPairAdapter {name = 1, value = 2})}}; the run's id, when
 * it goes into structured metadata, is the one pair {@code logbench_run} of every entry, encoded
 * once. Sizes are computed first, so the message is written in one pass with no intermediate
 * copies.
 */
public final class LokiProtoEncoder {

  private static final int WIRE_VARINT = 0;
  private static final int WIRE_LEN = 2;

  private final byte[][] labelStrings;
  private final StreamGroups groups;
  /** Field 3 of every entry (tag, length, LabelPairAdapter), or empty. */
  private final byte[] metadataField;
  private int[] entrySize = new int[128];

  /**
   * @param runMetadata the run's id as the structured metadata {@code logbench_run} of every
   *     entry, or null for none
   */
  public LokiProtoEncoder(List<Map<String, String>> streamLabels, String runMetadata) {
    metadataField = runMetadata == null ? new byte[0] : metadataField(RunContext.RUN_FIELD, runMetadata);
    labelStrings = new byte[streamLabels.size()][];
    for (int i = 0; i < labelStrings.length; i++) {
      labelStrings[i] = prometheusLabels(streamLabels.get(i)).getBytes(StandardCharsets.UTF_8);
    }
    groups = new StreamGroups(labelStrings.length);
  }

  /** EntryAdapter field 3 holding one LabelPairAdapter {@code {name = 1, value = 2}}. */
  static byte[] metadataField(String name, String value) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    byte[] v = value.getBytes(StandardCharsets.UTF_8);
    JsonBytes out = new JsonBytes(16 + n.length + v.length);
    tag(out, 3, WIRE_LEN);
    varint(out, lenField(n.length) + lenField(v.length));
    tag(out, 1, WIRE_LEN);
    varint(out, n.length);
    out.append(n);
    tag(out, 2, WIRE_LEN);
    varint(out, v.length);
    out.append(v);
    return out.toByteArray();
  }

  /** Labels in Prometheus form, {@code {a="b", c="d"}}, values escaped as PromQL strings. */
  public static String prometheusLabels(Map<String, String> labels) {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, String> e : labels.entrySet()) {
      if (b.length() > 1) {
        b.append(", ");
      }
      b.append(e.getKey()).append("=\"");
      String v = e.getValue();
      for (int i = 0; i < v.length(); i++) {
        char c = v.charAt(i);
        switch (c) {
          case '\\' -> b.append("\\\\");
          case '"' -> b.append("\\\"");
          case '\n' -> b.append("\\n");
          default -> b.append(c);
        }
      }
      b.append('"');
    }
    return b.append('}').toString();
  }

  /** Writes the uncompressed message of {@code batch} into {@code out} (cleared first). */
  public void encode(LineBatch batch, JsonBytes out) {
    encode(batch, null, out);
  }

  /** Writes the lines of {@code batch} set in {@code lines} (every line when null) into {@code out} (cleared first). */
  public void encode(LineBatch batch, java.util.BitSet lines, JsonBytes out) {
    out.clear();
    groups.group(batch, lines);
    int n = batch.count();
    if (entrySize.length < n) {
      entrySize = new int[Math.max(n, entrySize.length * 2)];
    }
    for (int g = 0; g < groups.groups(); g++) {
      byte[] labels = labelStrings[groups.stream(g)];
      int streamSize = lenField(labels.length);
      for (int i = groups.start(g); i < groups.end(g); i++) {
        int k = groups.line(i);
        int es = entrySizeOf(batch, k);
        entrySize[k] = es;
        streamSize += lenField(es);
      }
      tag(out, 1, WIRE_LEN);
      varint(out, streamSize);
      tag(out, 1, WIRE_LEN);
      varint(out, labels.length);
      out.append(labels);
      for (int i = groups.start(g); i < groups.end(g); i++) {
        int k = groups.line(i);
        tag(out, 2, WIRE_LEN);
        varint(out, entrySize[k]);
        writeEntry(batch, k, out);
      }
    }
  }

  private int entrySizeOf(LineBatch batch, int k) {
    return lenField(timestampSize(batch.timestampNanos(k))) + lenField(batch.length(k)) + metadataField.length;
  }

  private void writeEntry(LineBatch batch, int k, JsonBytes out) {
    long ns = batch.timestampNanos(k);
    long seconds = Math.floorDiv(ns, 1_000_000_000L);
    int nanos = (int) Math.floorMod(ns, 1_000_000_000L);
    tag(out, 1, WIRE_LEN);
    varint(out, timestampSize(ns));
    if (seconds != 0) {
      tag(out, 1, WIRE_VARINT);
      varint(out, seconds);
    }
    if (nanos != 0) {
      tag(out, 2, WIRE_VARINT);
      varint(out, nanos);
    }
    tag(out, 2, WIRE_LEN);
    varint(out, batch.length(k));
    out.append(batch.rawData(), batch.start(k), batch.length(k));
    out.append(metadataField);
  }

  private static int timestampSize(long ns) {
    long seconds = Math.floorDiv(ns, 1_000_000_000L);
    int nanos = (int) Math.floorMod(ns, 1_000_000_000L);
    return (seconds != 0 ? 1 + varintSize(seconds) : 0) + (nanos != 0 ? 1 + varintSize(nanos) : 0);
  }

  /** Size of a length-delimited field with a one-byte tag. */
  private static int lenField(int length) {
    return 1 + varintSize(length) + length;
  }

  private static void tag(JsonBytes out, int field, int wire) {
    out.append((byte) ((field << 3) | wire));
  }

  static int varintSize(long v) {
    int n = 1;
    while ((v & ~0x7FL) != 0) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  static void varint(JsonBytes out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.append((byte) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.append((byte) v);
  }
}
