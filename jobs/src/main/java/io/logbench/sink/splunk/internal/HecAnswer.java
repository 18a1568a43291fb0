package io.logbench.sink.splunk.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A HEC answer body: {@code {"text":"Success","code":0,"ackId":7}} or an error such as {@code
 * {"text":"Invalid token","code":4}}.
 *
 * @param text the answer's text ("" when absent)
 * @param code HEC status code (-1 when absent)
 * @param ackId the ack id of an acknowledged-delivery request, or -1
 */
public record HecAnswer(String text, int code, long ackId) {

  static final ObjectMapper JSON = new ObjectMapper();

  /** The answer, or null when the body is not a JSON object. */
  public static HecAnswer parse(byte[] body) {
    try {
      JsonNode root = JSON.readTree(body);
      if (root == null || !root.isObject()) {
        return null;
      }
      return new HecAnswer(
          root.path("text").asText(""),
          root.path("code").isInt() ? root.get("code").asInt() : -1,
          root.path("ackId").canConvertToLong() ? root.get("ackId").asLong() : -1);
    } catch (IOException e) {
      return null;
    }
  }

  /** A short, bounded excerpt of a body for failure details. */
  public static String excerpt(byte[] body) {
    return new String(body, 0, Math.min(body.length, 200), StandardCharsets.UTF_8);
  }

  /** "<status> <text>", or "<status>" when the answer has no text. */
  public static String reason(int status, HecAnswer answer) {
    return answer == null || answer.text().isEmpty() ? String.valueOf(status) : status + " " + answer.text();
  }
}
