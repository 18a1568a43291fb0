package io.logbench.sink.victorialogs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link VictoriaLogsContract} on the real VictoriaLogs ({@link VictoriaLogsServer}: {@code
 * LOGBENCH_VICTORIALOGS_BIN}, the shared server with a 100-year retention and, for the tests of
 * the default retention, one of their own; or {@code LOGBENCH_VICTORIALOGS_URL}); skipped, saying
 * so, without either. Each test has an AccountID of its own.
 */
class VictoriaLogsServerITCase extends VictoriaLogsContract {

  private static VictoriaLogsServer shared;

  @BeforeAll
  static void server() {
    shared = VictoriaLogsServer.shared();
  }

  private final List<VictoriaLogsServer> own = new ArrayList<>();
  private final Map<String, VictoriaLogsServer> byUrl = new HashMap<>();

  private final VictoriaLogsTarget target = new VictoriaLogsTarget() {
    @Override
    public String describe() {
      return shared.toString();
    }

    @Override
    public Endpoint endpoint(boolean defaultRetention) {
      VictoriaLogsServer s = shared;
      if (defaultRetention) {
        s = VictoriaLogsServer.start();
        own.add(s);
      }
      byUrl.put(s.url(), s);
      return new Endpoint(s.url(), VictoriaLogsServer.tenant());
    }

    @Override
    public void settle(Endpoint at) {
      byUrl.get(at.url()).forceFlush();
    }

    @Override
    public String metrics(Endpoint at) {
      return byUrl.get(at.url()).metrics();
    }

    @Override
    public OptionalLong dataFileBytes(Endpoint at) {
      VictoriaLogsServer s = byUrl.get(at.url());
      if (!s.started()) {
        return OptionalLong.empty();
      }
      s.awaitOnDisk(java.time.Duration.ofSeconds(60));
      return OptionalLong.of(s.dataFileBytes());
    }

    @Override
    public void close() {
      own.forEach(VictoriaLogsServer::close);
      own.clear();
    }
  };

  @Override
  VictoriaLogsTarget target() {
    return target;
  }
}
