package io.logbench.sink.victorialogs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.app.AppJsonStreams;
import io.logbench.sink.Specs;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading a {@code kind: victorialogs} block and its retention warning. */
class VictoriaLogsBackendTest {

  private static VictoriaLogsBackend parse(String yaml) throws Exception {
    return Specs.parse(VictoriaLogsBackend.TYPE, new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(yaml), "backends[1]"));
  }

  @Test
  void defaultsAndDeliveryKeysAreIgnored() throws Exception {
    VictoriaLogsBackend b = parse("kind: victorialogs\nurl: http://127.0.0.1:9428\ndelivery: load-test\n"
        + "in_flight: 2\ntimeout: 3s\n");
    assertThat(b.name()).isEqualTo("victorialogs");
    assertThat(b.retention()).isEqualTo(Duration.ofDays(7));
    assertThat(b.timeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(b.accountId()).isNull();
    assertThat(b.insertUri(new AppJsonStreams(2)).toString()).isEqualTo(
        "http://127.0.0.1:9428/insert/jsonline?_stream_fields=namespace%2Ccontainer&_msg_field=_msg&_time_field=_time");
  }

  @Test
  void streamFieldsAndTenantCanBeSet() throws Exception {
    VictoriaLogsBackend b = parse("kind: victorialogs\nurl: http://h:9428\nstream_fields: [namespace]\n"
        + "account_id: 1\nproject_id: 2\n");
    assertThat(b.streamFields(new AppJsonStreams(2))).isEqualTo(List.of("namespace"));
    assertThat(b.accountId()).isEqualTo("1");
    assertThat(b.projectId()).isEqualTo("2");
  }

  @Test
  void errorsNameTheKeyPath() {
    assertThatThrownBy(() -> parse("kind: victorialogs\nurl: http://h\nmsg_field: m\n"))
        .hasMessageStartingWith("backends[1].msg_field: unknown key");
    assertThatThrownBy(() -> parse("kind: victorialogs\nurl: http://h\naccount_id: -1\n"))
        .hasMessage("backends[1].account_id: -1 is not valid; expected a tenant id from 0 to 4294967295.");
    assertThatThrownBy(() -> parse("kind: victorialogs\nurl: http://h\nstream_fields: []\n"))
        .hasMessageStartingWith("backends[1].stream_fields: \"an empty list\" is not valid");
  }

  @Test
  void warnsWhenLinesAreOlderThanTheRetention() throws Exception {
    VictoriaLogsBackend b = parse("kind: victorialogs\nurl: http://h:9428\n");
    long now = 1_700_000_000_000L;
    assertThat(b.warnings(now - Duration.ofDays(6).toMillis(), now)).isEmpty();
    assertThat(b.warnings(1_619_838_000_000L, now)).containsExactly(
        "Backend 'victorialogs': the oldest line is from 2021-05-01T03:00:00Z, 927 days ago, older than"
            + " the retention of 7d; VictoriaLogs answers 200 but silently drops rows older than its"
            + " -retentionPeriod, so start it with e.g. -retentionPeriod=100y and set retention: 36500d"
            + " here, or use timestamps: compressed or now.");
    assertThat(parse("kind: victorialogs\nurl: http://h:9428\nretention: 36500d\n").warnings(1_619_838_000_000L, now))
        .isEmpty();
  }
}
