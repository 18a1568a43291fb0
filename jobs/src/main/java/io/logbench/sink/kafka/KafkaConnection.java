package io.logbench.sink.kafka;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.config.SecretRef;
import java.io.IOException;
import java.io.Reader;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * How to reach a Kafka cluster for anything but a backend's lines: bootstrap servers plus client
 * properties, for example the {@code dataset} block of a replay ({@code kind: kafka}) or {@code
 * publish --command-config}. Secrets never sit in it: secret properties are {@link SecretRef}s, and
 * a properties file is read only when a client opens.
 *
 * @param bootstrap {@code bootstrap.servers}
 * @param properties plain client properties, in the order given
 * @param secrets secret client properties (their key contains password, jaas or secret), by reference
 * @param propertiesFile a Java properties file read into every client's properties, or null
 */
public record KafkaConnection(
    String bootstrap, Map<String, String> properties, Map<String, SecretRef> secrets, String propertiesFile)
    implements Serializable {

  public KafkaConnection {
    if (bootstrap == null || bootstrap.isBlank()) {
      throw new IllegalArgumentException("A Kafka connection needs bootstrap servers.");
    }
    properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    secrets = Collections.unmodifiableMap(new LinkedHashMap<>(secrets));
  }

  /** Bootstrap servers only. */
  public static KafkaConnection of(String bootstrap) {
    return new KafkaConnection(bootstrap, Map.of(), Map.of(), null);
  }

  /** Bootstrap servers plus the properties of {@code file} (as Kafka's own tools take {@code --command-config}). */
  public static KafkaConnection of(String bootstrap, Path file) {
    return new KafkaConnection(bootstrap, Map.of(), Map.of(), file == null ? null : file.toString());
  }

  /**
   * Reads {@code bootstrap} (required) and {@code properties} of {@code block}, with the rules of a
   * Kafka backend block: reserved keys are refused, secret keys must be {@code {env: NAME}} or
   * {@code {file: PATH}}.
   */
  public static KafkaConnection parse(ConfigNode block) {
    String bootstrap = block.string("bootstrap", null);
    if (bootstrap == null || bootstrap.isBlank()) {
      throw ConfigException.missing(at(block, "bootstrap"), "the Kafka bootstrap servers, such as 127.0.0.1:9092");
    }
    Map<String, String> plain = new LinkedHashMap<>();
    Map<String, SecretRef> secret = new LinkedHashMap<>();
    ConfigNode props = block.mapping("properties");
    Iterator<String> keys = props.raw().fieldNames();
    while (keys.hasNext()) {
      String key = keys.next();
      if (KafkaBackend.RESERVED.contains(key)) {
        throw props.invalid(key, props.raw().get(key).asText(), "a property logbench does not set itself (it sets "
            + String.join(", ", KafkaBackend.RESERVED.stream().sorted().toList()) + ")");
      }
      if (KafkaBackend.isSecret(key)) {
        if (!props.raw().get(key).isObject()) {
          // never echo the value: it is the secret
          throw new ConfigException(props.path() + "." + key
              + ": holds a secret, so it must be given as {env: NAME} or {file: PATH}, not inline.");
        }
        ConfigNode ref = props.mapping(key).allowOnly("env", "file");
        secret.put(key, SecretRef.parse(ref, "env", "file", true, props.path() + "." + key));
      } else {
        plain.put(key, props.string(key, null));
      }
    }
    return new KafkaConnection(bootstrap, plain, secret, null);
  }

  private static String at(ConfigNode block, String key) {
    return block.path().isEmpty() ? key : block.path() + "." + key;
  }

  /** Properties for any client: the file's, then the plain ones, then the secrets read now, then bootstrap. */
  public Properties clientProperties() {
    Properties p = new Properties();
    if (propertiesFile != null) {
      try (Reader in = Files.newBufferedReader(Path.of(propertiesFile), StandardCharsets.UTF_8)) {
        p.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException("The Kafka client properties file " + propertiesFile + " cannot be read.", e);
      }
    }
    p.putAll(properties);
    for (Map.Entry<String, SecretRef> s : secrets.entrySet()) {
      p.put(s.getKey(), s.getValue().resolve());
    }
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return p;
  }

  /** Names what it holds, never a secret or the file's content. */
  @Override
  public String toString() {
    Map<String, Object> shown = new LinkedHashMap<>(properties);
    shown.putAll(secrets);
    return "KafkaConnection{bootstrap=" + bootstrap + ", properties=" + shown
        + (propertiesFile == null ? "" : ", propertiesFile=" + propertiesFile) + "}";
  }
}
