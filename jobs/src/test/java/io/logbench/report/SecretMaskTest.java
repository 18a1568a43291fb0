package io.logbench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@link SecretMask} and {@link RunFile}: inline secrets never shown, references shown. */
class SecretMaskTest {

  private static final String RUN_FILE = String.join("\n",
      "name: masked",
      "zone: America/Sao_Paulo",
      "backends:",
      "  - {kind: victorialogs, url: 'https://ops:vl-pass-123@vl.example:9428', user: ops,"
          + " password_env: VL_PASSWORD}",
      "  - kind: splunk",
      "    url: ${SPLUNK_URL:-https://admin:splunk-pass-456@127.0.0.1:8088}",
      "    token: inline-hec-token-789",
      "    token_file: /run/secrets/hec",
      "  - kind: kafka",
      "    bootstrap: ${KAFKA_BOOTSTRAP}",
      "    properties:",
      "      sasl.jaas.config: \"PlainLoginModule required username=u password=jaas-pass-000;\"",
      "      ssl.truststore.password: {env: TRUSTSTORE_PASSWORD}",
      "      ssl.keystore.password: {file: /run/secrets/ks}",
      "      client.secret: [a-secret-in-a-list]",
      "    headers:",
      "      Authorization: Bearer header-secret-111",
      "      X-Api-Key: api-key-222",
      "");

  @Test
  void inlineSecretsAreMaskedAndReferencesShown() throws Exception {
    RunFile f = RunFile.of(Path.of("masked.yaml"), RUN_FILE);
    String yaml = f.maskedYaml();
    for (String secret : new String[] {"vl-pass-123", "splunk-pass-456", "inline-hec-token-789",
        "jaas-pass-000", "a-secret-in-a-list", "header-secret-111", "api-key-222"}) {
      assertThat(yaml).as(secret).doesNotContain(secret);
    }
    assertThat(yaml).contains("password_env: VL_PASSWORD", "token_file: /run/secrets/hec",
        "env: TRUSTSTORE_PASSWORD", "file: /run/secrets/ks", "${KAFKA_BOOTSTRAP}",
        "https://ops:" + SecretMask.MASK + "@vl.example:9428",
        "${SPLUNK_URL:-https://admin:" + SecretMask.MASK + "@127.0.0.1:8088}");
    assertThat(f.maskedKeys()).contains("backends[0].url (URL password)", "backends[1].token",
        "backends[2].properties.sasl.jaas.config", "backends[2].properties.client.secret",
        "backends[2].headers.Authorization", "backends[2].headers.X-Api-Key");
    assertThat(f.maskedKeys()).noneMatch(k -> k.contains("truststore") || k.contains("keystore"));
    assertThat(f.zone()).isEqualTo("America/Sao_Paulo");
  }

  @Test
  void secretKeysAreNamedLikeSecretsButReferencesAreNot() {
    assertThat(SecretMask.isSecretKey("password")).isTrue();
    assertThat(SecretMask.isSecretKey("sasl.jaas.config")).isTrue();
    assertThat(SecretMask.isSecretKey("Authorization")).isTrue();
    assertThat(SecretMask.isSecretKey("hec_token")).isTrue();
    assertThat(SecretMask.isSecretKey("token_env")).isFalse();
    assertThat(SecretMask.isSecretKey("password_file")).isFalse();
    assertThat(SecretMask.isSecretKey("url")).isFalse();
    assertThat(SecretMask.isSecretKey("user")).isFalse();
  }

  @Test
  void aFileThatIsNotYamlIsNotShownAndItsErrorQuotesNoLine() {
    String broken = "backends:\n  - {kind: splunk, token: \"leaky-secret\n";
    assertThatThrownBy(() -> RunFile.of(Path.of("broken.yaml"), broken)).isInstanceOf(IOException.class)
        .hasMessageStartingWith("broken.yaml is not YAML (line ")
        .hasMessageEndingWith(", so it cannot be masked and is not shown.")
        .message().doesNotContain("leaky-secret");
  }

  @Test
  void urlPasswordsAreMaskedInAnyText() {
    assertThat(SecretMask.maskUrls("see http://u:p%40ss@h:1/x and https://h/y"))
        .isEqualTo("see http://u:" + SecretMask.MASK + "@h:1/x and https://h/y");
  }
}
