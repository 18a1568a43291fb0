package io.logbench.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transport over https against {@link TlsTestServer}, whose certificate is signed by a CA the
 * test makes: trusted through {@code tls.ca_file}, refused with the JDK's CAs alone, accepted
 * without verification with {@code tls.insecure}.
 */
class NettyTransportTlsTest {

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

  /** Status of a POST, or the failure. */
  private static Object post(TlsSettings tls) throws Exception {
    URI base = server.url();
    CompletableFuture<Object> result = new CompletableFuture<>();
    try (HttpTransport t = HttpTransport.open(HttpTransport.Settings.of(base, "tls test").tls(tls))) {
      t.endpoint(base.resolve("/x"), Map.of()).post("text/plain", HttpTransport.RequestBody.of(new byte[] {1}),
          new HttpTransport.Answer() {
            @Override
            public void answered(int status, byte[] body) {
              result.complete(status);
            }

            @Override
            public void failed(Throwable error) {
              result.complete(error);
            }
          });
      return result.get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void trustsTheServerThroughTheCaFile() throws Exception {
    assertThat(post(new TlsSettings(server.caPem().toString(), null, null, false))).isEqualTo(200);
  }

  @Test
  void refusesTheServerWithTheJdkCasAlone() throws Exception {
    assertThat(post(TlsSettings.DEFAULT)).isInstanceOf(IOException.class);
  }

  @Test
  void insecureTrustsAnyCertificate() throws Exception {
    assertThat(post(new TlsSettings(null, null, null, true))).isEqualTo(200);
  }

  @Test
  void anUnreadableCaFileIsAClearError() {
    String missing = dir.resolve("nope.pem").toString();
    assertThatThrownBy(() -> post(new TlsSettings(missing, null, null, false)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("The file " + missing + " given as tls.ca_file of tls test cannot be read; expected a readable PEM file.");
  }
}
