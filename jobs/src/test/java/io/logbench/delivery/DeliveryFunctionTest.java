package io.logbench.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.sink.DeliverySettings.Mode;
import io.logbench.sink.DeliverySettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The async operator's own timeout never cuts a delivery short. */
class DeliveryFunctionTest {

  @Test
  void atLeastOnceHasNoOperatorTimeout() {
    assertThat(DeliveryFunction.operatorTimeoutMillis(DeliverySettings.defaults(), Duration.ofSeconds(72))).isZero();
  }

  /** Splunk with ack may answer 72 s after the send (10 s request, 60 s ack, two 1 s polls). */
  @Test
  void loadTestOperatorTimeoutIsPastTheAnswerTimeoutOfASenderThatWaitsForAcks() {
    DeliverySettings s = DeliverySettings.defaults().withMode(Mode.LOAD_TEST);
    assertThat(DeliveryFunction.operatorTimeoutMillis(s, Duration.ofSeconds(72))).isEqualTo(154_000);
  }

  @Test
  void loadTestOperatorTimeoutIsASafetyNetPastTheRequestTimeout() {
    DeliverySettings s = DeliverySettings.defaults().withMode(Mode.LOAD_TEST).withTimeout(Duration.ofSeconds(3));
    assertThat(DeliveryFunction.operatorTimeoutMillis(s, s.timeout())).isEqualTo(16_000);
  }
}
