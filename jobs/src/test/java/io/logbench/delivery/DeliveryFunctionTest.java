package io.logbench.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.sink.DeliverySettings.Mode;
import io.logbench.sink.DeliverySettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The async operator's own timeout never cuts an at-least-once delivery short. */
class DeliveryFunctionTest {

  @Test
  void atLeastOnceHasNoOperatorTimeout() {
    assertThat(DeliveryFunction.operatorTimeoutMillis(DeliverySettings.defaults())).isZero();
  }

  @Test
  void loadTestOperatorTimeoutIsASafetyNetPastTheRequestTimeout() {
    DeliverySettings s = DeliverySettings.defaults().withMode(Mode.LOAD_TEST).withTimeout(Duration.ofSeconds(3));
    assertThat(DeliveryFunction.operatorTimeoutMillis(s)).isEqualTo(16_000);
  }
}
