package io.logbench.sink.splunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.Specs;
import io.logbench.sink.internal.FixedStreams;
import io.logbench.sink.internal.TestBatches;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading splunk backend blocks, and the token staying secret. */
class SplunkBackendTest {

  private static final String SECRET = "c0ffee00-dead-beef-0000-123456789abc";

  private static ConfigNode block(String yaml) throws Exception {
    return new ConfigNode(new ObjectMapper(new YAMLFactory()).readTree(yaml), "backends[1]");
  }

  @Test
  void defaultsApply() throws Exception {
    SplunkBackend b = Specs.parse(SplunkBackend.TYPE, block("kind: splunk\nurl: https://splunk:8088\ntoken_env: HEC_TOKEN\n"));
    assertThat(b.kind()).isEqualTo("splunk");
    assertThat(b.name()).isEqualTo("splunk");
    assertThat(b.sourcetype()).isEqualTo("logbench");
    assertThat(b.index()).isNull();
    assertThat(b.ack()).isFalse();
    assertThat(b.ackTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(b.ackPoll()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void everyKeyIsReadWithTheCommonKeys() throws Exception {
    SplunkBackend b =
        Specs.parse(SplunkBackend.TYPE, 
            block(
                "kind: splunk\nname: hec\nurl: http://127.0.0.1:8088/\ntoken_file: /run/secrets/hec\nindex: bench\n"
                    + "source: lb\nsourcetype: nginx\nhost: gen-1\nack: true\nack_timeout: 2m\nack_poll: 500ms\n"
                    + "delivery: at-least-once\nin_flight: 8\nretry: {}\ntimeout: 5s\n"));
    assertThat(b.url()).isEqualTo("http://127.0.0.1:8088");
    assertThat(b.token().file()).isEqualTo("/run/secrets/hec");
    assertThat(b.index()).isEqualTo("bench");
    assertThat(b.source()).isEqualTo("lb");
    assertThat(b.sourcetype()).isEqualTo("nginx");
    assertThat(b.host()).isEqualTo("gen-1");
    assertThat(b.ack()).isTrue();
    assertThat(b.ackTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(b.ackPoll()).isEqualTo(Duration.ofMillis(500));
  }

  /**
   * With ack, a send's answer is the request (timeout), then the ack wait (ack_timeout, ended by
   * the sender at the first poll after it), and a poll of margin: the delivery's own timeout
   * never fires first. Without ack, it is the request alone.
   */
  @Test
  void anAnswerWithAckMayTakeTheRequestTimeoutThenTheAckTimeoutAndTwoPolls() throws Exception {
    String hec = "kind: splunk\nurl: http://x:8088\ntoken_env: A\ntimeout: 10s\n";
    SplunkBackend withAck = Specs.parse(SplunkBackend.TYPE, block(hec + "ack: true\n"));
    assertThat(withAck.answerTimeout(withAck.timeout())).isEqualTo(Duration.ofSeconds(72));
    SplunkBackend tuned = Specs.parse(SplunkBackend.TYPE, block(hec + "ack: true\nack_timeout: 15s\nack_poll: 250ms\n"));
    assertThat(tuned.answerTimeout(Duration.ofSeconds(10))).isEqualTo(Duration.ofMillis(25_500));
    SplunkBackend noAck = Specs.parse(SplunkBackend.TYPE, block(hec));
    assertThat(noAck.answerTimeout(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void errorsNameTheKey() {
    assertThatThrownBy(() -> Specs.parse(SplunkBackend.TYPE, block("kind: splunk\nurl: http://x:8088\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("backends[1]: the HEC token is required; set token_env (an environment variable) or token_file (a file holding it).");
    assertThatThrownBy(() -> Specs.parse(SplunkBackend.TYPE, block("kind: splunk\nurl: http://x\ntoken_env: A\ntoken_file: b\n")))
        .hasMessage("backends[1]: set either token_env or token_file for the HEC token, not both.");
    assertThatThrownBy(() -> Specs.parse(SplunkBackend.TYPE, block("kind: splunk\nurl: http://x\ntoken_env: A\nack: maybe\n")))
        .hasMessage("backends[1].ack: \"maybe\" is not valid; expected one of true, false.");
    assertThatThrownBy(() -> Specs.parse(SplunkBackend.TYPE, block("kind: splunk\nurl: http://x\ntoken_env: A\nack_timeout: 0s\n")))
        .hasMessageStartingWith("backends[1].ack_timeout: \"0s\" is not valid");
    assertThatThrownBy(() -> Specs.parse(SplunkBackend.TYPE, block("kind: splunk\nurl: http://x\ntoken_env: A\ntoken: abc\n")))
        .hasMessageStartingWith("backends[1].token: unknown key");
  }

  @Test
  void theTokenFromAFileIsUsedButNeverShown(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("hec-token");
    Files.writeString(file, SECRET + "\n");
    try (SplunkHecEmulator hec = SplunkHecEmulator.start(SECRET)) {
      SplunkBackend b = Specs.parse(SplunkBackend.TYPE, block("kind: splunk\nurl: " + hec.url() + "\ntoken_file: " + file + "\n"));
      assertThat(b.toString()).doesNotContain(SECRET).contains("file:" + file);
      LineBatch batch = TestBatches.of(1, 0, 1_620_000_000_000L, new int[] {0}, "a");
      try (BatchSender sender = b.open(RunContext.of(new FixedStreams(Map.of("job", "x"))))) {
        SendResult r = sender.send(batch).get(30, TimeUnit.SECONDS);
        assertThat(r.kind()).isEqualTo(SendResult.Kind.ACCEPTED);
        assertThat(sender.toString()).doesNotContain(SECRET);
      }
      assertThat(hec.received().get(0).header("Authorization")).isEqualTo("Splunk " + SECRET);
    }
  }

  @Test
  void aMissingTokenSaysWhereItWasLookedForNotWhatItIs() throws Exception {
    SplunkBackend b = Specs.parse(SplunkBackend.TYPE, block("kind: splunk\nurl: http://127.0.0.1:9\ntoken_env: LOGBENCH_TEST_UNSET_TOKEN\n"));
    assertThatThrownBy(() -> b.open(RunContext.of(new FixedStreams(Map.of("job", "x")))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("The environment variable LOGBENCH_TEST_UNSET_TOKEN for the HEC token is not set or empty.");
  }
}
