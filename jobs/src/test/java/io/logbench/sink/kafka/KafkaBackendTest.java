package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.sink.RunContext;
import io.logbench.sink.Specs;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parsing and checking of the {@code kind: kafka} backend block. */
class KafkaBackendTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static KafkaBackend parse(String yaml) throws Exception {
    return Specs.parse(KafkaBackend.TYPE, new ConfigNode(YAML.readTree(yaml), "backends[0]"));
  }

  @Test
  void defaults() throws Exception {
    KafkaBackend b = parse("kind: kafka\nbootstrap: 127.0.0.1:9092\n");
    assertThat(b.kind()).isEqualTo("kafka");
    assertThat(b.name()).isEqualTo("kafka");
    assertThat(b.topic()).isEqualTo("logbench-lines");
    assertThat(b.exactlyOnce()).isFalse();
    assertThat(b.transactionalIdPrefix()).isEqualTo("logbench-kafka");
    Properties p = b.producerProperties();
    assertThat(p.getProperty("bootstrap.servers")).isEqualTo("127.0.0.1:9092");
    assertThat(p.getProperty("enable.idempotence")).isEqualTo("true");
    assertThat(p.getProperty("acks")).isEqualTo("all");
  }

  @Test
  void readsEveryKeyAndAcceptsTheCommonDeliveryKeys() throws Exception {
    KafkaBackend b =
        parse(
            """
            kind: kafka
            name: k2
            bootstrap: 127.0.0.1:9092
            topic: lines-2
            exactly_once: true
            transactional_id_prefix: tx
            properties:
              linger.ms: 5
              compression.type: lz4
            delivery: at-least-once
            in_flight: 4
            retry: {max: 3s}
            timeout: 30s
            """);
    assertThat(b.name()).isEqualTo("k2");
    assertThat(b.topic()).isEqualTo("lines-2");
    assertThat(b.exactlyOnce()).isTrue();
    assertThat(b.transactionalIdPrefix()).isEqualTo("tx");
    assertThat(b.properties()).containsExactly(
        org.assertj.core.api.Assertions.entry("linger.ms", "5"),
        org.assertj.core.api.Assertions.entry("compression.type", "lz4"));
    assertThat(b.producerProperties().getProperty("linger.ms")).isEqualTo("5");
  }

  @Test
  void missingBootstrapIsNamed() {
    assertThatThrownBy(() -> parse("kind: kafka\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("backends[0].bootstrap: missing; expected the Kafka bootstrap servers, such as 127.0.0.1:9092.");
  }

  @Test
  void unknownKeysAndBadValuesAreNamed() {
    assertThatThrownBy(() -> parse("kind: kafka\nbootstrap: x:1\ntopc: a\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("backends[0].topc: unknown key; expected one of kind, name, query_timeout, delivery, in_flight, timeout, retry, thresholds, visibility, bootstrap,");
    assertThatThrownBy(() -> parse("kind: kafka\nbootstrap: x:1\nexactly_once: maybe\n"))
        .hasMessage("backends[0].exactly_once: \"maybe\" is not valid; expected one of true, false.");
    assertThatThrownBy(() -> parse("kind: kafka\nbootstrap: x:1\nproperties: [a]\n"))
        .hasMessage("backends[0].properties: \"a list\" is not valid; expected a mapping of keys.");
  }

  @Test
  void propertiesLogbenchSetsCannotBeOverridden() {
    assertThatThrownBy(() -> parse("kind: kafka\nbootstrap: x:1\nproperties:\n  acks: '1'\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("backends[0].properties.acks: \"1\" is not valid; expected a property logbench does not set itself");
  }

  @Test
  void inlineSecretsAreRefusedWithoutEchoingThem() {
    assertThatThrownBy(
            () -> parse("kind: kafka\nbootstrap: x:1\nproperties:\n  ssl.keystore.password: hunter2\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "backends[0].properties.ssl.keystore.password: holds a secret, so it must be given as {env: NAME} or {file: PATH}, not inline.")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void secretsFromFilesAreReadAtOpenAndNeverShown(@TempDir Path dir) throws Exception {
    Path jaas = dir.resolve("jaas");
    Files.writeString(jaas, "org.apache.kafka.common.security.plain.PlainLoginModule required password=\"s3cr3t\";\n");
    KafkaBackend b =
        parse(
            "kind: kafka\nbootstrap: x:1\nproperties:\n  security.protocol: SASL_PLAINTEXT\n"
                + "  sasl.jaas.config: {file: " + jaas + "}\n  ssl.key.password: {env: LOGBENCH_TEST_UNSET_VAR}\n");
    assertThat(b.toString())
        .contains("security.protocol=SASL_PLAINTEXT")
        .contains("sasl.jaas.config=file:" + jaas)
        .contains("ssl.key.password=env:LOGBENCH_TEST_UNSET_VAR")
        .doesNotContain("s3cr3t");
    // The spec itself, as shipped to tasks, holds no secret.
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(b);
    }
    assertThat(bytes.toString(java.nio.charset.StandardCharsets.ISO_8859_1)).doesNotContain("s3cr3t");
    KafkaBackend copy;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (KafkaBackend) in.readObject();
    }
    assertThat(copy.toString()).isEqualTo(b.toString());
    // Reading happens when a client opens; the unset variable is named, nothing else.
    assertThatThrownBy(copy::clientProperties)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "The environment variable LOGBENCH_TEST_UNSET_VAR for backends[0].properties.ssl.key.password is not set or empty.");
  }

  @Test
  void secretsResolveIntoClientProperties(@TempDir Path dir) throws Exception {
    Path pw = dir.resolve("pw");
    Files.writeString(pw, "s3cr3t\n");
    KafkaBackend b = parse("kind: kafka\nbootstrap: x:1\nproperties:\n  ssl.truststore.password: {file: " + pw + "}\n");
    assertThat(b.clientProperties().getProperty("ssl.truststore.password")).isEqualTo("s3cr3t");
    assertThat(b.toString()).doesNotContain("s3cr3t");
  }

  @Test
  void anExactlyOnceBackendHasNoBatchSender() throws Exception {
    KafkaBackend b = parse("kind: kafka\nname: eos\nbootstrap: x:1\nexactly_once: true\n");
    assertThatThrownBy(() -> b.open(RunContext.of(KafkaTestData.CATALOG)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Backend eos is exactly_once, so it writes through Flink's transactional KafkaSink"
            + " (KafkaBackend.deliver), not a BatchSender.");
    assertThat(b.endsAfterCheckpoint()).as("its source holds the end of input for the last commit").isTrue();
    assertThat(parse("kind: kafka\nbootstrap: x:1\n").endsAfterCheckpoint()).isFalse();
  }
}
