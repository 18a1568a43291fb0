package io.logbench.sink.splunk;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.job.BackendSummary;
import io.logbench.job.GenerateJob;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunPlan;
import io.logbench.sink.BatchOutcome;
import io.logbench.testing.LoopbackMiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code generate} to a Splunk backend with indexer acknowledgement, on a MiniCluster, against the
 * Splunk HEC emulator (not Splunk) whose acks come late: the case (ack 15 s late, 10 s
 * request timeout, 60 s ack timeout) at a third of the scale and less (ack 5 s late, 2 s request
 * timeout, 20 s ack timeout), so the request timeout passes long before the ack comes; a request
 * timeout under a second would fail the first requests of a cold JVM on a busy machine. A batch is sent once and stored once; only an ack that misses
 * {@code ack_timeout} fails, counted as {@code ack timeout}.
 */
class SplunkAckITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(2);

  private static final String TOKEN = "11111111-2222-3333-4444-555555555555";
  private static final int LINES = 400;
  private static final int BATCHES = 4;
  private static final Duration ACK_DELAY = Duration.ofSeconds(5);

  @TempDir Path dir;
  private final SplunkHecEmulator hec = SplunkHecEmulator.start(TOKEN).ackEnabled(true).ackDelay(ACK_DELAY);

  @AfterEach
  void stop() {
    hec.close();
  }

  /**
   * 400 app-json lines as fast as they go, 100 a batch, to the emulator with ack on; a load test
   * judges its thresholds only after 30 s (the default delay), past the end of these runs.
   */
  private BackendSummary generate(String delivery, String ackTimeout) throws Exception {
    Files.writeString(dir.resolve("hec.token"), TOKEN);
    RunPlan plan = RunPlan.of(ConfigLoader.parse(String.join("\n",
        "dataset: {kind: app-json, lines: " + LINES + ", streams: 2}",
        "schedule: {kind: max}",
        "batch: {lines: 100}",
        "parallelism: 2",
        "backends:",
        "  - kind: splunk",
        "    url: '" + hec.url() + "'",
        "    token_file: '" + dir.resolve("hec.token") + "'",
        "    index: logbench",
        "    ack: true",
        "    ack_timeout: " + ackTimeout,
        "    ack_poll: 50ms",
        "    timeout: 2s",
        "    delivery: " + delivery,
        delivery.equals("at-least-once") ? "    retry: {initial: 10ms, max: 50ms}" : "",
        ""), "splunk-ack-it"));
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.configure(conf);
    CloseableIterator<BatchOutcome> outcomes = GenerateJob.of(plan).build(env).get("splunk").collectAsync();
    JobClient client = env.executeAsync("splunk ack it");
    BackendSummary summary = new BackendSummary("splunk", plan.config().backends().get(0).delivery().mode(),
        plan.lines(), plan.schedule(), plan.firstIndex());
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      try (outcomes) {
        while (outcomes.hasNext()) {
          BatchOutcome o = outcomes.next();
          synchronized (summary) {
            summary.add(o);
          }
        }
      } catch (Exception e) {
        failure.set(e);
      }
    }, "splunk-ack-it-outcomes");
    reader.start();
    try {
      // a sender resending every batch whose ack is late would never finish: fail instead
      client.getJobExecutionResult().get(60, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      client.cancel().get();
      throw new AssertionError("The run did not finish within 60 s; the emulator got " + hec.received().size()
          + " requests for " + BATCHES + " batches.", e);
    }
    reader.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(failure.get()).isNull();
    synchronized (summary) {
      return summary;
    }
  }

  private Map<String, Long> copiesBySeq() {
    return hec.events().stream().collect(Collectors.groupingBy(e -> e.fields().get("seq"), Collectors.counting()));
  }

  @Test
  void atLeastOnceWaitsForALateAckPastTheRequestTimeoutAndSendsEachBatchOnce() throws Exception {
    BackendSummary s = generate("at-least-once", "20s");
    assertThat(s.batches()).isEqualTo(BATCHES);
    assertThat(s.acked()).isEqualTo(LINES);
    assertThat(s.attempts()).as("one request per batch: nothing resent").isEqualTo(BATCHES);
    assertThat(s.statuses()).containsExactly(Map.entry(BatchOutcome.Status.ACKED, (long) BATCHES));
    // the answer waited for the ack, far past the 2 s request timeout
    assertThat(s.latencyMicros().percentile(0)).isGreaterThanOrEqualTo(ACK_DELAY.toNanos() / 1_000);
    assertThat(hec.received()).hasSize(BATCHES);
    assertThat(hec.events()).hasSize(LINES);
    assertThat(copiesBySeq().values()).as("copies of each line").containsOnly(1L);
  }

  @Test
  void aLoadTestCountsALateAckAsAcked() throws Exception {
    BackendSummary s = generate("load-test", "20s");
    assertThat(s.acked()).as("failed: %s, statuses: %s", s.failed(), s.statuses()).isEqualTo(LINES);
    assertThat(s.failed()).isEmpty();
    assertThat(hec.received()).hasSize(BATCHES);
  }

  @Test
  void anAckMissingAckTimeoutIsFailedAsAckTimeoutInALoadTest() throws Exception {
    BackendSummary s = generate("load-test", "1s");
    assertThat(s.acked()).isZero();
    assertThat(s.failed()).isEqualTo(Map.of("ack timeout", (long) LINES));
    // the events were stored although never acknowledged in time: HEC keeps what it took
    assertThat(hec.events()).hasSize(LINES);
    assertThat(hec.received()).hasSize(BATCHES);
  }
}
