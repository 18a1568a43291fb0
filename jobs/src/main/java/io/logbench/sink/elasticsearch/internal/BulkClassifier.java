package io.logbench.sink.elasticsearch.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.sink.SendResult.Kind;
import io.logbench.sink.SendResult.Rejection;
import io.logbench.sink.SendResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Classifies a {@code _bulk} answer. A 200 may still hold failed items, so every item's status is
 * read: 2xx stored; 409 (a {@code create} whose {@code _id} exists) stored by an earlier attempt
 * of the same run, so accepted: ids are {@code <run id>-<seq>} ({@code BulkEncoder}), so another
 * run's document never answers 409 (without a run id they are the bare seq, and a 409 may then be
 * another run's document: the line is acked though this run did not store it); 429 and 5xx items
 * retried; any other item status rejected by {@code "<status>
 * <error.type>"}. Whole-request 429/5xx are retryable, other statuses fatal.
 *
 * <p>The batch's kind: ACCEPTED when every item is stored (409s included), RETRYABLE when every
 * item is to be retried, FATAL when every item is rejected, PARTIAL otherwise (even with no item
 * stored, when some are rejected and others to be retried: both sets are in the result).
 *
 * <p>An unreadable 200 body (or one whose items do not match the request) is retryable: it does
 * not say which lines were stored, and since every action is a {@code create} with a fixed
 * {@code _id}, resending cannot duplicate (already stored lines answer 409 next time).
 */
public final class BulkClassifier {

  private static final ObjectMapper JSON = new ObjectMapper();

  private BulkClassifier() {}

  /**
   * @param status HTTP status of the answer
   * @param body the answer's bytes
   * @param lines indexes (within the batch) of the lines the request carried, in request order
   * @param batchSize lines in the whole batch (for the BitSets)
   */
  public static SendResult classify(int status, byte[] body, BitSet lines, int batchSize) {
    int sent = lines.cardinality();
    if (status == 429 || status >= 500) {
      String type = errorType(body);
      return retryable(lines, status, status + (type.isEmpty() ? "" : " " + type) + ": " + text(body));
    }
    if (status != 200) {
      String type = errorType(body);
      String reason = type.isEmpty() ? String.valueOf(status) : status + " " + type;
      return new SendResult(
          Kind.FATAL, status, 0, List.of(new Rejection(reason, sent, copy(lines))), new BitSet(),
          SendResult.bounded("The bulk request was refused: " + reason + ": " + text(body)));
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      return retryable(lines, status, "The bulk answer is not JSON: " + text(body));
    }
    JsonNode items = root == null ? null : root.get("items");
    if (items == null || !items.isArray() || items.size() != sent) {
      return retryable(
          lines, status,
          "The bulk answer does not list one item per line (" + sent + " sent): " + text(body));
    }
    if (root.path("errors").isBoolean() && !root.get("errors").asBoolean()) {
      return new SendResult(Kind.ACCEPTED, status, sent, List.of(), new BitSet(), "");
    }
    return classifyItems(items, lines, batchSize);
  }

  private static SendResult classifyItems(JsonNode items, BitSet lines, int batchSize) {
    int accepted = 0;
    int conflicts = 0;
    BitSet retry = new BitSet(batchSize);
    Map<String, BitSet> rejected = new LinkedHashMap<>();
    Map<String, String> firstReason = new LinkedHashMap<>();
    int i = 0;
    for (int k = lines.nextSetBit(0); k >= 0; k = lines.nextSetBit(k + 1), i++) {
      JsonNode item = items.get(i);
      JsonNode result = item.isObject() && item.size() == 1 ? item.elements().next() : null;
      int itemStatus = result == null ? 0 : result.path("status").asInt(0);
      if (itemStatus >= 200 && itemStatus < 300) {
        accepted++;
      } else if (itemStatus == 409) {
        accepted++;
        conflicts++;
      } else if (itemStatus == 429 || itemStatus >= 500 || itemStatus == 0) {
        retry.set(k);
      } else {
        JsonNode error = result.path("error");
        String reason = itemStatus + " " + error.path("type").asText("unknown");
        rejected.computeIfAbsent(reason, r -> new BitSet(batchSize)).set(k);
        firstReason.putIfAbsent(reason, error.path("reason").asText(""));
      }
    }
    List<Rejection> rejections = new ArrayList<>();
    StringBuilder detail = new StringBuilder();
    for (Map.Entry<String, BitSet> r : rejected.entrySet()) {
      rejections.add(new Rejection(r.getKey(), r.getValue().cardinality(), r.getValue()));
      detail.append(r.getValue().cardinality()).append(" rejected ").append(r.getKey()).append(": ")
          .append(firstReason.get(r.getKey())).append("; ");
    }
    if (!retry.isEmpty()) {
      detail.append(retry.cardinality()).append(" to retry (429/5xx items); ");
    }
    if (conflicts > 0) {
      detail.append(conflicts)
          .append(" already stored by an earlier attempt of this run (409 version_conflict_engine_exception); ");
    }
    Kind kind;
    if (rejections.isEmpty() && retry.isEmpty()) {
      kind = Kind.ACCEPTED;
    } else if (accepted > 0) {
      kind = Kind.PARTIAL;
    } else if (rejections.isEmpty()) {
      kind = Kind.RETRYABLE;
    } else if (retry.isEmpty()) {
      kind = Kind.FATAL;
    } else {
      kind = Kind.PARTIAL;
    }
    String d = detail.length() == 0 ? "" : detail.substring(0, detail.length() - 2);
    return new SendResult(kind, 200, accepted, List.copyOf(rejections), retry, SendResult.bounded(d));
  }

  private static SendResult retryable(BitSet lines, int status, String detail) {
    return new SendResult(Kind.RETRYABLE, status, 0, List.of(), copy(lines), SendResult.bounded(detail));
  }

  private static BitSet copy(BitSet b) {
    return (BitSet) b.clone();
  }

  /** {@code error.type} of an error answer, or "" when the body has none. */
  static String errorType(byte[] body) {
    try {
      JsonNode root = JSON.readTree(body);
      if (root != null) {
        JsonNode error = root.get("error");
        if (error != null && error.isObject()) {
          return error.path("type").asText("");
        }
      }
    } catch (IOException e) {
      // not JSON: no type
    }
    return "";
  }

  private static String text(byte[] body) {
    int n = Math.min(body.length, 400);
    return new String(body, 0, n, StandardCharsets.UTF_8);
  }
}
