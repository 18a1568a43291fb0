package io.logbench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.sink.LatencyHistogram;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/** The in-process reporter behind the progress lines: what it sums, keeps and leaves out. */
class LiveMetricsTest {

  /** A task's group in {@code backend=<name>}, with its subtask index. */
  private static UnregisteredMetricsGroup group(String backend, int subtask) {
    return new UnregisteredMetricsGroup() {
      @Override
      public Map<String, String> getAllVariables() {
        return backend == null ? Map.of("<subtask_index>", "" + subtask)
            : Map.of("<backend>", backend, "<subtask_index>", "" + subtask);
      }
    };
  }

  private static LatencyHistogram latencies(long... micros) {
    LatencyHistogram h = new LatencyHistogram();
    for (long m : micros) {
      h.record(m);
    }
    return h;
  }

  @Test
  void sumsEachBackendsTasksAndKeepsAFinishedTasksLastValuesUntilItsNextAttempt() {
    LiveMetrics m = new LiveMetrics();
    AtomicLong done0 = new AtomicLong(300);
    AtomicLong done1 = new AtomicLong(200);
    Gauge<Long> lines0 = done0::get;
    Gauge<Long> lag0 = () -> 40L;
    m.notifyOfAddedMetric(lines0, "linesDone", group("vl", 0));
    m.notifyOfAddedMetric((Gauge<Long>) done1::get, "linesDone", group("vl", 1));
    m.notifyOfAddedMetric(lag0, "scheduleLagMillis", group("vl", 0));
    m.notifyOfAddedMetric((Gauge<Long>) () -> 10L, "scheduleLagMillis", group("vl", 1));
    SimpleCounter acked = new SimpleCounter();
    acked.inc(450);
    m.notifyOfAddedMetric(acked, "linesAcked", group("vl", 0));
    SimpleCounter failed = new SimpleCounter();
    failed.inc(50);
    m.notifyOfAddedMetric(failed, "linesFailed_5xx", group("vl", 0));
    m.notifyOfAddedMetric(new SimpleCounter(), "linesFailed_io", group("vl", 0));
    m.notifyOfAddedMetric(new HistogramMetric(() -> latencies(1_000, 2_000)), "latencyFromScheduleMicros", group("vl", 0));
    m.notifyOfAddedMetric(new HistogramMetric(() -> latencies(3_000, 200_000)), "latencyFromScheduleMicros", group("vl", 1));
    // another backend's and a group without a backend are left out
    m.notifyOfAddedMetric((Gauge<Long>) () -> 9_999L, "linesDone", group("loki", 0));
    m.notifyOfAddedMetric((Gauge<Long>) () -> 9_999L, "linesDone", group(null, 0));

    LiveMetrics.Backend vl = m.backend("vl");
    assertThat(vl.linesDone()).isEqualTo(500);
    assertThat(vl.lagMillis()).isEqualTo(40);
    assertThat(vl.acked()).isEqualTo(450);
    assertThat(vl.failed()).containsExactly(Map.entry("5xx", 50L));
    assertThat(vl.latency().count()).isEqualTo(4);
    assertThat(vl.latency().max()).isEqualTo(200_000);
    assertThat(vl.liveSources()).isEqualTo(2);

    // the lines are read when asked: no copy was made at registration
    done1.set(250);
    assertThat(m.backend("vl").linesDone()).isEqualTo(550);

    // subtask 0 ends: its lines stay counted, its lag is no longer anyone's
    m.notifyOfRemovedMetric(lines0, "linesDone", group("vl", 0));
    m.notifyOfRemovedMetric(lag0, "scheduleLagMillis", group("vl", 0));
    done0.set(0);
    vl = m.backend("vl");
    assertThat(vl.linesDone()).isEqualTo(550);
    assertThat(vl.lagMillis()).isEqualTo(10);
    assertThat(vl.liveSources()).isEqualTo(1);

    // its next attempt (a restore) replaces it
    m.notifyOfAddedMetric((Gauge<Long>) () -> 120L, "linesDone", group("vl", 0));
    assertThat(m.backend("vl").linesDone()).isEqualTo(370);
    assertThat(m.backend("nothing").linesDone()).isZero();
  }

  @Test
  void theCommandFindsItsReporterByTokenWhileItIsOpen() {
    LiveMetrics m = new LiveMetrics();
    MetricConfig config = new MetricConfig();
    config.setProperty(LiveMetrics.TOKEN, "t-1");
    assertThat(LiveMetrics.forToken("t-1")).isNull();
    m.open(config);
    assertThat(LiveMetrics.forToken("t-1")).isSameAs(m);
    m.close();
    assertThat(LiveMetrics.forToken("t-1")).isNull();
    assertThat(LiveMetrics.configuration("t-1").toMap())
        .containsEntry("metrics.reporter.logbench_live.factory.class", LiveMetricsFactory.class.getName())
        .containsEntry("metrics.reporter.logbench_live.token", "t-1");
  }
}
