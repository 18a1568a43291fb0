package io.logbench.sink.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.sink.RunContext;
import io.logbench.sink.Specs;
import io.logbench.sink.elasticsearch.ElasticsearchBackend.Refresh;
import org.junit.jupiter.api.Test;

/** Reading elasticsearch/opensearch backend blocks. */
class ElasticsearchBackendTest {

  private static ConfigNode block(String yaml) throws Exception {
    return new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(yaml), "backends[0]");
  }

  @Test
  void defaultsApply() throws Exception {
    ElasticsearchBackend b = Specs.parse(ElasticsearchBackend.TYPE, block("kind: elasticsearch\nurl: http://127.0.0.1:9200/\n"));
    assertThat(b.name()).isEqualTo("elasticsearch");
    assertThat(b.kind()).isEqualTo("elasticsearch");
    assertThat(b.url()).isEqualTo("http://127.0.0.1:9200");
    assertThat(b.index()).isEqualTo("logbench");
    assertThat(b.refresh()).isEqualTo(Refresh.NONE);
    assertThat(b.auth()).isNull();
    assertThat(b.flushTimeout()).isEqualTo(java.time.Duration.ofMinutes(2));
  }

  @Test
  void theStoredSizesFlushKeys() throws Exception {
    ElasticsearchBackend off = Specs.parse(ElasticsearchBackend.TYPE, block("kind: opensearch\nurl: http://x\nflush: false\n"));
    assertThat(off.flushTimeout()).isZero();
    ElasticsearchBackend longer =
        Specs.parse(ElasticsearchBackend.TYPE, block("kind: opensearch\nurl: http://x\nflush_timeout: 5m\n"));
    assertThat(longer.flushTimeout()).isEqualTo(java.time.Duration.ofMinutes(5));
    assertThatThrownBy(() -> Specs.parse(ElasticsearchBackend.TYPE,
        block("kind: opensearch\nurl: http://x\nflush: false\nflush_timeout: 1m\n")))
        .hasMessage("backends[0].flush_timeout: \"1m\" is not valid; expected no flush_timeout with flush: false"
            + " (nothing is flushed, so nothing is waited for).");
    assertThatThrownBy(() -> Specs.parse(ElasticsearchBackend.TYPE, block("kind: opensearch\nurl: http://x\nflush: maybe\n")))
        .hasMessage("backends[0].flush: \"maybe\" is not valid; expected one of true, false.");
  }

  @Test
  void everyKeyIsReadWithTheCommonKeys() throws Exception {
    ElasticsearchBackend b =
        Specs.parse(ElasticsearchBackend.TYPE, 
            block(
                "kind: opensearch\nname: os\nurl: https://search:9200\nindex: logs-2021\nuser: bench\n"
                    + "password_env: OS_PASSWORD\nrefresh: wait_for\ndelivery: load-test\nin_flight: 4\n"
                    + "thresholds: {}\ntimeout: 10s\nquery_timeout: 2m\n"));
    assertThat(b.kind()).isEqualTo("opensearch");
    assertThat(b.timeout()).isEqualTo(java.time.Duration.ofSeconds(10));
    assertThat(b.queryTimeout()).isEqualTo(java.time.Duration.ofMinutes(2));
    assertThat(b.name()).isEqualTo("os");
    assertThat(b.index()).isEqualTo("logs-2021");
    assertThat(b.refresh()).isEqualTo(Refresh.WAIT_FOR);
    assertThat(b.auth().password().env()).isEqualTo("OS_PASSWORD");
    assertThat(b.toString()).contains("env:OS_PASSWORD");
  }

  @Test
  void errorsNameTheKey() {
    assertThatThrownBy(() -> Specs.parse(ElasticsearchBackend.TYPE, block("kind: elasticsearch\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("backends[0].url: missing; expected a base URL such as http://127.0.0.1:9200.");
    assertThatThrownBy(() -> Specs.parse(ElasticsearchBackend.TYPE, block("kind: elasticsearch\nurl: http://x\nrefresh: true\n")))
        .hasMessage("backends[0].refresh: \"true\" is not valid; expected one of none, wait_for.");
    assertThatThrownBy(() -> Specs.parse(ElasticsearchBackend.TYPE, block("kind: elasticsearch\nurl: http://x\nindex: Logs\n")))
        .hasMessageStartingWith("backends[0].index: \"Logs\" is not valid; expected a lowercase index name");
    assertThatThrownBy(() -> Specs.parse(ElasticsearchBackend.TYPE, block("kind: elasticsearch\nurl: http://x\nuser: u\n")))
        .hasMessage("backends[0].password_env: missing; expected password_env or password_file, since user is set.");
    assertThatThrownBy(() -> Specs.parse(ElasticsearchBackend.TYPE, block("kind: elasticsearch\nurl: http://x\nshards: 2\n")))
        .hasMessageStartingWith("backends[0].shards: unknown key; expected one of kind, name, query_timeout,");
    assertThatThrownBy(() -> Specs.parse(ElasticsearchBackend.TYPE, block("kind: elasticsearch\nurl: ftp://x\n")))
        .hasMessageStartingWith("backends[0].url: \"ftp://x\" is not valid; expected an http or https base URL");
  }

  @Test
  void passwordIsReadWhenASenderOpensAndAMissingOneSaysWhere() throws Exception {
    ElasticsearchBackend b =
        Specs.parse(ElasticsearchBackend.TYPE, 
            block("kind: elasticsearch\nurl: http://127.0.0.1:9\nuser: u\npassword_env: LOGBENCH_TEST_UNSET_PASSWORD\n"));
    assertThatThrownBy(() -> b.open(RunContext.of(new io.logbench.sink.internal.FixedStreams(java.util.Map.of("a", "b")))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Backend 'elasticsearch': The environment variable LOGBENCH_TEST_UNSET_PASSWORD for the password is not set or empty.");
  }
}
