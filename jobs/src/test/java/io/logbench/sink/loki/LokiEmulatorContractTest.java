package io.logbench.sink.loki;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link LokiContract} on the {@link LokiEmulator}: one emulator (auth on) per test and kind of
 * limits, set as the real server's test config sets them ({@link LokiServer}).
 */
class LokiEmulatorContractTest extends LokiContract {

  private final List<LokiEmulator> started = new ArrayList<>();

  private final LokiTarget target = new LokiTarget() {
    @Override
    public String describe() {
      return "LokiEmulator";
    }

    @Override
    public Endpoint endpoint(LokiServer.Limits limits, String purpose) {
      LokiEmulator loki = new LokiEmulator().authEnabled(true);
      switch (limits) {
        case REJECT_OLD_SAMPLES -> loki.rejectOldSamples(Duration.ofHours(168));
        // ingestion_rate_mb 0.05, ingestion_burst_size_mb 0.1 (Loki's MB is 2^20 bytes)
        case LOW_RATE -> loki.ingestionRate(52_428, 104_857);
        case NO_STRUCTURED_METADATA -> loki.allowStructuredMetadata(false);
        case DEFAULT -> { }
      }
      started.add(loki);
      return new Endpoint(loki.url(), "t-" + purpose);
    }

    @Override
    public String metrics() {
      return started.get(started.size() - 1).metricsPage();
    }

    @Override
    public OptionalLong chunkFileBytes(String tenant) {
      return OptionalLong.empty();
    }
  };

  @Override
  LokiTarget target() {
    return target;
  }

  @AfterEach
  void stop() {
    started.forEach(LokiEmulator::close);
  }
}
