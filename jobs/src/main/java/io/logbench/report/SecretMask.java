package io.logbench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks the secrets of a run file's tree before a report shows it. A value is masked when its key
 * is named like a secret ({@code password}, {@code token}, {@code secret}, {@code jaas}, {@code
 * authorization}, {@code credential}, {@code api_key}, {@code private_key}), whatever the value is;
 * keys ending in {@code _env} or {@code _file} and {@code {env: NAME}} / {@code {file: PATH}}
 * blocks stay as they are, because they are references to where the secret is, not the secret.
 * The password of a URL's user info ({@code https://user:pw@host}) is masked wherever it appears.
 */
public final class SecretMask {

  /** What a masked value is shown as. */
  public static final String MASK = "********";

  private static final Pattern SECRET_KEY = Pattern.compile(
      "password|passwd|token|secret|jaas|authorization|credential|api[-_.]?key|private[-_.]?key");
  private static final Pattern URL_PASSWORD =
      Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://[^/\\s:@]*:)([^/\\s@]+)@");

  private SecretMask() {}

  /** Whether a key names a secret value (and is not a reference to one). */
  public static boolean isSecretKey(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return SECRET_KEY.matcher(k).find() && !isReferenceKey(k);
  }

  private static boolean isReferenceKey(String lowerKey) {
    return lowerKey.endsWith("_env") || lowerKey.endsWith("_file");
  }

  /**
   * Masks {@code tree} in place.
   *
   * @return the paths of the masked values ({@code backends[2].token}), for the report to list
   */
  public static List<String> mask(JsonNode tree) {
    List<String> masked = new ArrayList<>();
    walk(tree, "", masked);
    return masked;
  }

  /** {@code text} with the password of any URL's user info masked. */
  public static String maskUrls(String text) {
    Matcher m = URL_PASSWORD.matcher(text);
    return m.replaceAll("$1" + Matcher.quoteReplacement(MASK) + "@");
  }

  private static void walk(JsonNode node, String path, List<String> masked) {
    if (node instanceof ObjectNode o) {
      Iterator<Map.Entry<String, JsonNode>> fields = o.fields();
      List<Map.Entry<String, JsonNode>> copy = new ArrayList<>();
      fields.forEachRemaining(copy::add);
      for (Map.Entry<String, JsonNode> f : copy) {
        String at = path.isEmpty() ? f.getKey() : path + "." + f.getKey();
        JsonNode v = f.getValue();
        if (isSecretKey(f.getKey()) && !isReferenceBlock(v) && !v.isNull()) {
          o.set(f.getKey(), TextNode.valueOf(MASK));
          masked.add(at);
        } else if (v.isTextual()) {
          String shown = maskUrls(v.asText());
          if (!shown.equals(v.asText())) {
            o.set(f.getKey(), TextNode.valueOf(shown));
            masked.add(at + " (URL password)");
          }
        } else {
          walk(v, at, masked);
        }
      }
    } else if (node instanceof ArrayNode a) {
      for (int i = 0; i < a.size(); i++) {
        JsonNode v = a.get(i);
        String at = path + "[" + i + "]";
        if (v.isTextual()) {
          String shown = maskUrls(v.asText());
          if (!shown.equals(v.asText())) {
            a.set(i, TextNode.valueOf(shown));
            masked.add(at + " (URL password)");
          }
        } else {
          walk(v, at, masked);
        }
      }
    }
  }

  /** {@code {env: NAME}} or {@code {file: PATH}}: where a secret is, as Kafka properties take it. */
  private static boolean isReferenceBlock(JsonNode v) {
    if (!(v instanceof ObjectNode o) || o.size() != 1) {
      return false;
    }
    JsonNode ref = o.has("env") ? o.get("env") : o.get("file");
    return ref != null && ref.isTextual();
  }
}
