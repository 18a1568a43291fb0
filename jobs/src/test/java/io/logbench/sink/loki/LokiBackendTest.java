package io.logbench.sink.loki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.app.AppJsonStreams;
import io.logbench.sink.RunContext;
import io.logbench.sink.Specs;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading a {@code kind: loki} block. */
class LokiBackendTest {

  private static LokiBackend parse(String yaml) throws Exception {
    return Specs.parse(LokiBackend.TYPE, new ConfigNode(
        new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(yaml), "backends[0]"));
  }

  @Test
  void defaultsAndTheCommonKeys() throws Exception {
    LokiBackend b = parse("kind: loki\nurl: http://127.0.0.1:3100/\ndelivery: at-least-once\n"
        + "in_flight: 4\nretry: {max: 3s}\n");
    assertThat(b.name()).isEqualTo("loki");
    assertThat(b.format()).isEqualTo(LokiBackend.Format.PROTOBUF);
    assertThat(b.timeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(b.pushUri().toString()).isEqualTo("http://127.0.0.1:3100/loki/api/v1/push");
    assertThat(b.tenant()).isNull();
    assertThat(b.auth()).isNull();
  }

  @Test
  void staticLabelsJoinTheDatasetLabels() throws Exception {
    LokiBackend b = parse("kind: loki\nurl: http://h:3100\nformat: json\ntenant: t\nlabels: {job: logbench}\n");
    assertThat(b.streamLabels(RunContext.of(new AppJsonStreams(2))).get(1))
        .isEqualTo(Map.of("namespace", "loadtest", "container", "k6-1", "job", "logbench"));
    LokiBackend clash = parse("kind: loki\nurl: http://h:3100\nlabels: {container: x}\n");
    assertThatThrownBy(() -> clash.streamLabels(RunContext.of(new AppJsonStreams(2))))
        .hasMessage("Backend 'loki': the static label 'container' clashes with a label of the dataset's"
            + " streams; rename or remove it.");
  }

  @Test
  void errorsNameTheKeyPath() {
    assertThatThrownBy(() -> parse("kind: loki\nurl: http://h\nbogus: 1\n"))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("backends[0].bogus: unknown key");
    assertThatThrownBy(() -> parse("kind: loki\n"))
        .hasMessage("backends[0].url: missing; expected a base URL such as http://127.0.0.1:3100.");
    assertThatThrownBy(() -> parse("kind: loki\nurl: http://h\nformat: xml\n"))
        .hasMessage("backends[0].format: \"xml\" is not valid; expected one of json, protobuf, otlp.");
    assertThatThrownBy(() -> parse("kind: loki\nurl: http://h\npassword_env: P\n"))
        .hasMessage("backends[0].user: missing; expected a user name, since password_env/password_file is set.");
    assertThatThrownBy(() -> parse("kind: loki\nurl: ftp://h\n"))
        .hasMessageStartingWith("backends[0].url: \"ftp://h\" is not valid");
  }

  @Test
  void warnsAboutOldLines() throws Exception {
    LokiBackend b = parse("kind: loki\nurl: http://h:3100\n");
    long now = 1_700_000_000_000L;
    assertThat(b.warnings(now - Duration.ofDays(1).toMillis(), now)).isEmpty();
    assertThat(b.warnings(1_619_838_000_000L, now).get(0))
        .startsWith("Backend 'loki': the oldest line is from 2021-05-01T03:00:00Z, more than a week ago");
  }
}
