package io.logbench.sink.victorialogs;

import static io.logbench.sink.emulator.TestBatches.MAY_2021_MILLIS;
import static io.logbench.sink.emulator.TestBatches.batch;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.app.AppJsonStreams;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult.Kind;
import io.logbench.sink.SendResult;
import io.logbench.sink.Specs;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** VictoriaLogsSender against the VictoriaLogsEmulator: request shape and every class of answer. */
class VictoriaLogsSenderTest {

  private static final AppJsonStreams STREAMS = new AppJsonStreams(3);
  private final VictoriaLogsEmulator vl = new VictoriaLogsEmulator().retention(Duration.ofDays(365 * 100));

  @AfterEach
  void stop() {
    vl.close();
  }

  private VictoriaLogsBackend backend(String timeout, Integer account) {
    ObjectNode n = new ObjectMapper().createObjectNode();
    n.put("kind", "victorialogs").put("url", vl.url()).put("timeout", timeout);
    if (account != null) {
      n.put("account_id", account).put("project_id", 7);
    }
    return Specs.parse(VictoriaLogsBackend.TYPE, new ConfigNode(n, "backends[1]"));
  }

  private SendResult send(VictoriaLogsBackend spec, LineBatch b) {
    try (BatchSender s = spec.open(RunContext.of(STREAMS))) {
      return s.send(b).join();
    }
  }

  private SendResult send(LineBatch b) {
    return send(backend("5s", null), b);
  }

  @Test
  void everyLineIsARowWithItsRawMessageNanosecondTimeAndStreamFields() {
    LineBatch b = batch(42, 6, MAY_2021_MILLIS, 7, 3);
    assertThat(send(backend("5s", 12), b)).isEqualTo(SendResult.accepted(6, 200));
    assertThat(vl.lastContentType()).isEqualTo("application/stream+json");
    assertThat(vl.lastQuery())
        .isEqualTo("_stream_fields=namespace%2Ccontainer&_msg_field=_msg&_time_field=_time");
    List<VictoriaLogsEmulator.Row> rows = vl.rows();
    assertThat(rows).hasSize(6);
    for (int k = 0; k < 6; k++) {
      VictoriaLogsEmulator.Row r = rows.get(k);
      assertThat(r.msg()).isEqualTo(b.lineAsString(k));
      assertThat(r.nanos()).isEqualTo(b.timestampNanos(k));
      assertThat(r.tenant()).isEqualTo("12:7");
      assertThat(r.stream()).isEqualTo("{namespace=\"loadtest\",container=\"k6-" + (k % 3) + "\"}");
    }
  }

  @Test
  void aRetriedBatchIsStoredTwice() {
    LineBatch b = batch(0, 4, MAY_2021_MILLIS, 1, 3);
    send(b);
    send(b);
    assertThat(vl.rowsStored()).isEqualTo(8);
  }

  @Test
  void rowsOutsideTheRetentionAreAnswered200AndDropped() {
    vl.retention(Duration.ofDays(7));
    SendResult r = send(batch(0, 4, MAY_2021_MILLIS, 1, 3));
    assertThat(r).isEqualTo(SendResult.accepted(4, 200));
    assertThat(vl.rowsStored()).isZero();
    assertThat(vl.rowsDropped()).isEqualTo(4);
  }

  @Test
  void statusesAreClassified() {
    vl.faults().failNext(1, 429, "too many requests").failNext(1, 503, "unavailable")
        .failNext(1, 400, "cannot parse request").failNext(1, 401, "Unauthorized");
    SendResult a = send(batch(0, 3, MAY_2021_MILLIS, 1, 3));
    SendResult b = send(batch(0, 3, MAY_2021_MILLIS, 1, 3));
    SendResult c = send(batch(0, 3, MAY_2021_MILLIS, 1, 3));
    SendResult d = send(batch(0, 3, MAY_2021_MILLIS, 1, 3));
    assertThat(a.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(a.status()).isEqualTo(429);
    assertThat(a.retry().cardinality()).isEqualTo(3);
    assertThat(b.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(b.status()).isEqualTo(503);
    assertThat(c.kind()).isEqualTo(Kind.FATAL);
    assertThat(c.rejections()).containsExactly(new SendResult.Rejection("400 cannot parse request", 3, null));
    assertThat(d.rejections().get(0).reason()).isEqualTo("401 Unauthorized");
    assertThat(vl.rowsStored()).isZero();
  }

  @Test
  void hangsTimeOutAndDroppedConnectionsAreIo() {
    vl.faults().hangNext(1).resetNext(1);
    assertThat(send(backend("300ms", null), batch(0, 2, MAY_2021_MILLIS, 1, 3)))
        .isEqualTo(SendResult.retryable(2, 0, "timeout"));
    assertThat(send(batch(0, 2, MAY_2021_MILLIS, 1, 3))).isEqualTo(SendResult.retryable(2, 0, "io"));
  }

  @Test
  void aStoppedServerIsIo() {
    VictoriaLogsBackend spec = backend("2s", null);
    vl.close();
    assertThat(send(spec, batch(0, 2, MAY_2021_MILLIS, 1, 3))).isEqualTo(SendResult.retryable(2, 0, "io"));
  }

  @Test
  void garbageIsClassifiedByStatus() {
    vl.faults().garbageNext(1, 200).garbageNext(1, 500).garbageNext(1, 404);
    assertThat(send(batch(0, 2, MAY_2021_MILLIS, 1, 3)).kind()).isEqualTo(Kind.ACCEPTED);
    assertThat(send(batch(0, 2, MAY_2021_MILLIS, 1, 3)).kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(send(batch(0, 2, MAY_2021_MILLIS, 1, 3)).kind()).isEqualTo(Kind.FATAL);
  }
}
