package io.logbench.sink.loki;

import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link LokiContract} on the real Loki ({@link LokiServer}: {@code LOGBENCH_LOKI_BIN}, started
 * once for every ITCase of the JVM, or {@code LOGBENCH_LOKI_URL}); skipped, saying so, without
 * either. Each test has a tenant of its own, with the limits it asks for.
 */
class LokiServerITCase extends LokiContract {

  private static LokiServer loki;

  @BeforeAll
  static void server() {
    loki = LokiServer.shared();
  }

  private final LokiTarget target = new LokiTarget() {
    @Override
    public String describe() {
      return loki.toString();
    }

    @Override
    public Endpoint endpoint(LokiServer.Limits limits, String purpose) {
      return new Endpoint(loki.url(), loki.tenant(limits, purpose));
    }

    @Override
    public String metrics() {
      return loki.metrics();
    }

    @Override
    public OptionalLong chunkFileBytes(String tenant) {
      return loki.started() ? OptionalLong.of(loki.chunkFileBytes(tenant)) : OptionalLong.empty();
    }
  };

  @Override
  LokiTarget target() {
    return target;
  }
}
