package io.logbench.sink.victorialogs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * {@link VictoriaLogsContract} on the {@link VictoriaLogsEmulator}: one emulator per endpoint, with
 * 1.26.0's offset sign, rows searchable after the real server's second or so (a visibility delay
 * that {@code settle} ends, as {@code /internal/force_flush} does on the server).
 */
class VictoriaLogsEmulatorContractTest extends VictoriaLogsContract {

  private final List<VictoriaLogsEmulator> started = new ArrayList<>();

  private final VictoriaLogsTarget target = new VictoriaLogsTarget() {
    @Override
    public String describe() {
      return "VictoriaLogsEmulator";
    }

    @Override
    public Endpoint endpoint(boolean defaultRetention) {
      VictoriaLogsEmulator vl = new VictoriaLogsEmulator().visibilityDelay(Duration.ofSeconds(30))
          .retention(defaultRetention ? VictoriaLogsBackend.DEFAULT_RETENTION : Duration.ofDays(36_500));
      started.add(vl);
      return new Endpoint(vl.url(), "42");
    }

    @Override
    public void settle(Endpoint at) {
      VictoriaLogsServer.forceFlush(at.url());
    }

    @Override
    public String metrics(Endpoint at) {
      return VictoriaLogsServer.get(at.url(), "/metrics", null).body();
    }

    @Override
    public OptionalLong dataFileBytes(Endpoint at) {
      return OptionalLong.empty();
    }

    @Override
    public void close() {
      started.forEach(VictoriaLogsEmulator::close);
      started.clear();
    }
  };

  @Override
  VictoriaLogsTarget target() {
    return target;
  }
}
