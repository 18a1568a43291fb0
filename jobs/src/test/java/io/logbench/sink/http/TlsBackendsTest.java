package io.logbench.sink.http;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static io.logbench.sink.emulator.TestBatches.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.app.AppJsonStreams;
import io.logbench.http.TlsSettings;
import io.logbench.http.TlsTestServer;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.Specs;
import io.logbench.sink.elasticsearch.ElasticsearchBackend;
import io.logbench.sink.loki.LokiBackend;
import io.logbench.sink.splunk.SplunkBackend;
import io.logbench.sink.victorialogs.VictoriaLogsBackend;
import io.logbench.count.CountReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code tls} block of every HTTP backend: read with clear errors, and used by each sender and
 * each count reader against an https server whose CA the test makes ({@link TlsTestServer}).
 */
class TlsBackendsTest {

  private static final AppJsonStreams STREAMS = new AppJsonStreams(3);

  @TempDir static Path dir;
  private static TlsTestServer server;
  private static Path token;

  @BeforeAll
  static void start() throws Exception {
    server = new TlsTestServer(dir);
    token = Files.writeString(dir.resolve("hec-token"), "test-token");
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static ConfigNode block(String yaml) throws Exception {
    return new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(yaml), "backends[1]");
  }

  private static String tlsBlock() {
    return "tls:\n  ca_file: " + server.caPem() + "\n";
  }

  private static SendResult sendOne(BackendType type, String yaml) throws Exception {
    BackendSpec spec = Specs.parse(type, block(yaml + "url: " + server.url() + "\n" + tlsBlock()));
    try (BatchSender s = spec.open(RunContext.of(STREAMS))) {
      return s.send(batch(0, 5, MAY_2021_MILLIS, 1, 3)).join();
    }
  }

  @Test
  void everyHttpBackendSendsOverHttpsTrustingTheCaFile() throws Exception {
    assertThat(sendOne(LokiBackend.TYPE, "kind: loki\nformat: json\n")).isEqualTo(SendResult.accepted(5, 204));
    assertThat(sendOne(LokiBackend.TYPE, "kind: loki\n")).isEqualTo(SendResult.accepted(5, 204));
    assertThat(sendOne(VictoriaLogsBackend.TYPE, "kind: victorialogs\n")).isEqualTo(SendResult.accepted(5, 200));
    assertThat(sendOne(ElasticsearchBackend.TYPE, "kind: elasticsearch\n").kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    assertThat(sendOne(SplunkBackend.TYPE, "kind: splunk\ntoken_file: " + token + "\n"))
        .isEqualTo(SendResult.accepted(5, 200));
  }

  /**
   * Requests the server got while {@code type}'s count reader counted one window; its answers are
   * not count answers, so the read itself may fail once the request has arrived.
   */
  private static int countRequests(BackendType type, String yaml) throws Exception {
    BackendSpec spec = Specs.parse(type, block(yaml + "url: " + server.url() + "\n"));
    int before = server.requests();
    try (CountReader r = spec.openCounter(RunContext.of(STREAMS))) {
      r.counts(MAY_2021_MILLIS, MAY_2021_MILLIS + 1000, 1000);
    } catch (IOException e) {
      // the answer is not a count: what matters is whether the request got through TLS
    }
    return server.requests() - before;
  }

  @Test
  void everyHttpCountReaderReadsOverHttpsTrustingTheCaFile() throws Exception {
    Path password = Files.writeString(dir.resolve("search-password"), "secret");
    String splunk = "kind: splunk\ntoken_file: " + token + "\nsearch_url: " + server.url() + "\nsearch_user: u\n"
        + "search_password_file: " + password + "\n";
    for (var c : java.util.Map.of(LokiBackend.TYPE, "kind: loki\n", VictoriaLogsBackend.TYPE, "kind: victorialogs\n",
        ElasticsearchBackend.TYPE, "kind: elasticsearch\n", SplunkBackend.TYPE, splunk).entrySet()) {
      assertThat(countRequests(c.getKey(), c.getValue() + tlsBlock())).as(c.getValue()).isPositive();
      assertThat(countRequests(c.getKey(), c.getValue())).as(c.getValue() + " without ca_file").isZero();
    }
  }

  @Test
  void withoutTheCaFileTheServerIsNotTrusted() throws Exception {
    BackendSpec spec = Specs.parse(VictoriaLogsBackend.TYPE, block("kind: victorialogs\nurl: " + server.url() + "\n"));
    try (BatchSender s = spec.open(RunContext.of(STREAMS))) {
      SendResult r = s.send(batch(0, 5, MAY_2021_MILLIS, 1, 3)).join();
      assertThat(r.kind()).isEqualTo(SendResult.Kind.RETRYABLE);
      assertThat(r.detail()).isEqualTo("io");
    }
  }

  @Test
  void readsTheBlock() throws Exception {
    Path cert = Files.writeString(dir.resolve("client.pem"), "x");
    Path key = Files.writeString(dir.resolve("client.key"), "x");
    VictoriaLogsBackend b = Specs.parse(VictoriaLogsBackend.TYPE, block("kind: victorialogs\nurl: https://vl:9428\n"
        + "tls:\n  ca_file: " + server.caPem() + "\n  cert_file: " + cert + "\n  key_file: " + key + "\n"));
    assertThat(b.tls()).isEqualTo(new TlsSettings(server.caPem().toString(), cert.toString(), key.toString(), false));
    VictoriaLogsBackend plain = Specs.parse(VictoriaLogsBackend.TYPE, block("kind: victorialogs\nurl: https://vl:9428\n"));
    assertThat(plain.tls()).isEqualTo(TlsSettings.DEFAULT);
    LokiBackend insecure = Specs.parse(LokiBackend.TYPE, block("kind: loki\nurl: https://loki:3100\ntls:\n  insecure: true\n"));
    assertThat(insecure.tls().insecure()).isTrue();
  }

  @Test
  void wrongBlocksNameTheKey() {
    assertThatThrownBy(() -> Specs.parse(SplunkBackend.TYPE,
        block("kind: splunk\nurl: https://s:8088\ntoken_env: T\ntls:\n  ca_file: /no/such.pem\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("backends[1].tls.ca_file: \"/no/such.pem\" is not valid; expected a readable PEM file.");
    assertThatThrownBy(() -> Specs.parse(ElasticsearchBackend.TYPE,
        block("kind: elasticsearch\nurl: https://es:9200\ntls:\n  cert_file: " + server.caPem() + "\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("backends[1].tls.key_file: missing; expected the PEM file of the client key, since cert_file is set.");
    assertThatThrownBy(() -> Specs.parse(LokiBackend.TYPE,
        block("kind: loki\nurl: https://l:3100\ntls:\n  insecure: yes please\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("backends[1].tls.insecure: ");
    assertThatThrownBy(() -> Specs.parse(LokiBackend.TYPE,
        block("kind: loki\nurl: https://l:3100\ntls:\n  verify: false\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("backends[1].tls.verify: unknown key; expected one of ca_file, cert_file, key_file, insecure.");
  }
}
