package io.logbench.count.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.http.TlsSettings;
import io.logbench.http.TlsTestServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Count reads (the JDK HttpClient) trust https servers as the backend's {@code tls} block says,
 * like its sender: the CA file, not the JDK's CAs alone, and with {@code insecure} any certificate
 * for any host name (the test server's certificate names 127.0.0.1 only, not localhost).
 */
class CountQueriesTlsTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private static TlsTestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = new TlsTestServer(dir);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static String get(URI uri, TlsSettings tls) throws IOException {
    try (CountQueries q = new CountQueries("the test server", "tls-test", TIMEOUT, TIMEOUT, Map.of(), tls)) {
      return new String(q.get(uri, "the test read"), StandardCharsets.UTF_8);
    }
  }

  private static URI byName() {
    return URI.create("https://localhost:" + server.url().getPort() + "/count");
  }

  @Test
  void trustsTheCaFile() throws Exception {
    assertThat(get(server.url().resolve("/count"), new TlsSettings(server.caPem().toString(), null, null, false)))
        .isEqualTo("{}");
  }

  @Test
  void refusesTheServerWithTheJdkCasAlone() {
    assertThatThrownBy(() -> get(server.url().resolve("/count"), TlsSettings.DEFAULT))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("the test server failed to answer the test read (");
  }

  @Test
  void checksTheHostNameWithTheCaFile() {
    assertThatThrownBy(() -> get(byName(), new TlsSettings(server.caPem().toString(), null, null, false)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("the test server failed to answer the test read (");
  }

  @Test
  void insecureTrustsAnyCertificateForAnyName() throws Exception {
    assertThat(get(byName(), new TlsSettings(null, null, null, true))).isEqualTo("{}");
  }
}
