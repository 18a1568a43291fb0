package io.logbench.sink.elasticsearch;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchSender;
import io.logbench.sink.internal.HttpUrls;
import io.logbench.sink.internal.SecretRef;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * An {@code elasticsearch} (or {@code opensearch}) backend block: where to send {@code _bulk}
 * requests, into which index, with which credentials. Keys:
 *
 * <ul>
 *   <li>{@code kind}: {@code elasticsearch} or its alias {@code opensearch}
 *   <li>{@code name}: backend name in reports (default {@code elasticsearch})
 *   <li>{@code url}: base URL, required (e.g. {@code http://127.0.0.1:9200})
 *   <li>{@code index}: target index (default {@value #DEFAULT_INDEX})
 *   <li>{@code user} with {@code password_env} or {@code password_file}: basic authentication
 *   <li>{@code refresh}: {@code none} (default) or {@code wait_for} (each bulk waits until its
 *       documents are searchable: slower, but counts right after an ack are exact)
 * </ul>
 *
 * The common delivery keys ({@code delivery, in_flight, retry, thresholds, timeout}) are accepted
 * here and read elsewhere.
 *
 * @param kind as written in the run file
 * @param name backend name
 * @param url base URL without a trailing slash
 * @param index target index
 * @param user basic-auth user, or null
 * @param password where the password is, or null (never the password itself)
 * @param refresh refresh policy of each bulk request
 */
public record ElasticsearchBackend(
    String kind, String name, String url, String index, String user, SecretRef password, Refresh refresh)
    implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String DEFAULT_NAME = "elasticsearch";
  public static final String DEFAULT_INDEX = "logbench";

  /** What a bulk request asks about visibility before it answers. */
  public enum Refresh {
    /** Answer as soon as the documents are stored (searchable after the next refresh). */
    NONE,
    /** Answer once the documents are searchable ({@code ?refresh=wait_for}). */
    WAIT_FOR
  }

  /** Reads and checks an elasticsearch/opensearch backend block. */
  public static ElasticsearchBackend parse(ConfigNode block) {
    block.allowOnly(
        "kind", "name", "url", "index", "user", "password_env", "password_file", "refresh",
        "delivery", "in_flight", "retry", "thresholds", "timeout");
    String kind = block.choice("kind", null, "elasticsearch", "opensearch");
    String name = block.string("name", DEFAULT_NAME);
    if (name.isBlank() || !name.matches("[A-Za-z0-9._-]+")) {
      throw block.invalid("name", name, "letters, digits, '.', '_' or '-'");
    }
    String url = HttpUrls.baseUrl(block, "url", "http://127.0.0.1:9200");
    String index = block.string("index", DEFAULT_INDEX);
    // Index names: lowercase, no spaces or the characters the _bulk path and action would break on.
    if (!index.matches("[a-z0-9][a-z0-9._+-]*") || index.length() > 255) {
      throw block.invalid("index", index, "a lowercase index name (letters, digits, '.', '_', '-', '+')");
    }
    String user = block.string("user", null);
    SecretRef password = SecretRef.parse(block, "password_env", "password_file", false, "the password");
    if (user == null && password != null) {
      throw new ConfigException(block.path() + ": password_env/password_file needs user as well.");
    }
    if (user != null && password == null) {
      throw new ConfigException(
          block.path() + ": user needs a password; set password_env or password_file.");
    }
    Refresh refresh =
        "wait_for".equals(block.choice("refresh", "none", "none", "wait_for")) ? Refresh.WAIT_FOR : Refresh.NONE;
    return new ElasticsearchBackend(kind, name, url, index, user, password, refresh);
  }

  @Override
  public BatchSender open(StreamCatalog streams) {
    ElasticsearchSender.Builder b =
        ElasticsearchSender.builder().url(url).index(index).streams(streams).refresh(refresh);
    if (user != null) {
      String pair = user + ":" + password.resolve();
      b.authorization("Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }
    return b.build();
  }
}
