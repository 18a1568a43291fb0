package io.logbench.publish;

import static java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.schemas.LogRecord;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.SchemaNormalization;
import org.apache.kafka.common.TopicPartition;

/**
 * What {@code publish} wrote to a topic, stored as JSON in the companion compacted topic {@code
 * <topic>.manifest} under the key {@code <topic>}: the dataset block the lines come from (from
 * which every line's time and every window's count follow by arithmetic, as for the built-in
 * datasets), the run lines {@code [firstIndex, firstIndex + lines)} it holds, the first and last
 * line time as a check, and the offsets {@code [start, end)} of every partition that hold them.
 *
 * @param topic the topic holding the lines
 * @param dataset the dataset block, as a run file writes it, every default filled in
 * @param firstIndex dataset index (global sequence id) of the first line published
 * @param lines lines published
 * @param firstMillis own time of the first line, epoch milliseconds
 * @param lastMillis own time of the last line, epoch milliseconds
 * @param zone the dataset's zone (in which its lines print their time)
 * @param streams number of streams (record keys) the lines are spread over
 * @param valueSchema fingerprint of the record schema (Avro parsing fingerprint, CRC-64-AVRO, hex)
 * @param partitions offsets of every partition that hold the lines, by partition
 * @param publishedAt when the data was committed
 */
public record Manifest(
    String topic,
    ObjectNode dataset,
    long firstIndex,
    long lines,
    long firstMillis,
    long lastMillis,
    ZoneId zone,
    int streams,
    String valueSchema,
    List<PartitionRange> partitions,
    Instant publishedAt) {

  /** The manifest format this logbench writes and reads. */
  public static final int FORMAT = 1;

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public Manifest {
    partitions = List.copyOf(partitions);
  }

  /** Offsets {@code [start, end)} of one partition holding published lines. */
  public record PartitionRange(int partition, long start, long end) {}

  /** Fingerprint of the {@code LogRecord} schema this logbench writes and reads. */
  public static String currentValueSchema() {
    return HexFormat.of().formatHex(
        longBytes(SchemaNormalization.parsingFingerprint64(LogRecord.getClassSchema())));
  }

  private static byte[] longBytes(long v) {
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) v;
      v >>>= 8;
    }
    return b;
  }

  /** Starting offset of every partition. */
  public Map<TopicPartition, Long> startOffsets() {
    Map<TopicPartition, Long> m = new LinkedHashMap<>();
    partitions.forEach(p -> m.put(new TopicPartition(topic, p.partition()), p.start()));
    return m;
  }

  /** Stopping (exclusive end) offset of every partition. */
  public Map<TopicPartition, Long> endOffsets() {
    Map<TopicPartition, Long> m = new LinkedHashMap<>();
    partitions.forEach(p -> m.put(new TopicPartition(topic, p.partition()), p.end()));
    return m;
  }

  /** The manifest as JSON (UTF-8), keys in a fixed order. */
  public byte[] toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("topic", topic);
    root.set("dataset", dataset);
    root.put("firstIndex", firstIndex);
    root.put("lines", lines);
    root.put("firstMillis", firstMillis);
    root.put("lastMillis", lastMillis);
    root.put("first", ISO_OFFSET_DATE_TIME.format(Instant.ofEpochMilli(firstMillis).atZone(zone)));
    root.put("last", ISO_OFFSET_DATE_TIME.format(Instant.ofEpochMilli(lastMillis).atZone(zone)));
    root.put("zone", zone.getId());
    root.put("streams", streams);
    root.put("valueSchema", valueSchema);
    ArrayNode parts = root.putArray("partitions");
    for (PartitionRange p : partitions) {
      parts.addObject().put("partition", p.partition()).put("start", p.start()).put("end", p.end());
    }
    root.put("publishedAt", publishedAt.toString());
    try {
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException("A manifest cannot be written as JSON, which it always can.", e);
    }
  }

  /**
   * Reads a manifest; {@code where} names it in errors (for example {@code "topic t.manifest, key
   * t"}), which name the field, the value and what was expected.
   */
  public static Manifest parse(byte[] json, String where) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
      throw new ConfigException(where + ": not a logbench manifest (not JSON: " + why + ").");
    }
    if (root == null || !root.isObject()) {
      throw new ConfigException(where + ": not a logbench manifest (not a JSON object).");
    }
    try {
      return parse(new ConfigNode(root, ""));
    } catch (ConfigException e) {
      throw new ConfigException(where + ": " + e.getMessage());
    }
  }

  private static Manifest parse(ConfigNode m) {
    long format = required(m, "format", 1, Integer.MAX_VALUE, "a manifest format number");
    if (format != FORMAT) {
      throw m.invalid("format", format, "format " + FORMAT + ", the one this logbench reads; publish the"
          + " dataset again with this logbench");
    }
    m.allowOnly("format", "topic", "dataset", "firstIndex", "lines", "firstMillis", "lastMillis", "first", "last",
        "zone", "streams", "valueSchema", "partitions", "publishedAt");
    String topic = m.string("topic", null);
    if (topic == null || topic.isBlank()) {
      throw ConfigException.missing("topic", "the name of the topic holding the lines");
    }
    if (!m.has("dataset") || !m.raw().get("dataset").isObject()) {
      throw ConfigException.missing("dataset", "the dataset block the lines come from");
    }
    long first = required(m, "firstIndex", 0, Long.MAX_VALUE, "a line index, 0 or more");
    long lines = required(m, "lines", 0, Long.MAX_VALUE, "a number of lines, 0 or more");
    long firstMillis = required(m, "firstMillis", Long.MIN_VALUE, Long.MAX_VALUE, "epoch milliseconds");
    long lastMillis = required(m, "lastMillis", firstMillis, Long.MAX_VALUE,
        "epoch milliseconds, not before firstMillis");
    ZoneId zone = m.zone("zone", null);
    if (zone == null) {
      throw ConfigException.missing("zone", "the dataset's zone, such as America/Sao_Paulo");
    }
    int streams = (int) required(m, "streams", 1, Integer.MAX_VALUE, "a number of streams, 1 or more");
    String schema = m.string("valueSchema", null);
    if (schema == null) {
      throw ConfigException.missing("valueSchema", "the fingerprint of the LogRecord schema");
    }
    List<PartitionRange> partitions = new ArrayList<>();
    List<ConfigNode> parts = m.mappings("partitions");
    if (parts.isEmpty()) {
      throw ConfigException.missing("partitions", "the offsets of every partition holding lines");
    }
    for (ConfigNode p : parts) {
      p.allowOnly("partition", "start", "end");
      int partition = (int) required(p, "partition", 0, Integer.MAX_VALUE, "a partition number");
      long start = required(p, "start", 0, Long.MAX_VALUE, "an offset, 0 or more");
      long end = required(p, "end", start, Long.MAX_VALUE, "an offset, not before start");
      partitions.add(new PartitionRange(partition, start, end));
    }
    String at = m.string("publishedAt", null);
    Instant publishedAt;
    try {
      publishedAt = at == null ? null : Instant.parse(at);
    } catch (DateTimeParseException e) {
      throw m.invalid("publishedAt", at, "an ISO-8601 instant such as 2026-11-30T12:00:00Z");
    }
    if (publishedAt == null) {
      throw ConfigException.missing("publishedAt", "when the lines were committed");
    }
    return new Manifest(topic, (ObjectNode) m.raw().get("dataset"), first, lines, firstMillis, lastMillis, zone,
        streams, schema, partitions, publishedAt);
  }

  private static long required(ConfigNode node, String key, long min, long max, String what) {
    if (!node.has(key)) {
      throw ConfigException.missing(node.path().isEmpty() ? key : node.path() + "." + key, what);
    }
    return node.integer(key, 0, min, max, what);
  }
}
