package io.logbench.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.job.TestBackends.Counting;
import io.logbench.job.TestBackends.Failing;
import io.logbench.job.TestBackends.OutcomeSink;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunPlan;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.BatchOutcome.Status;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.DeliverySettings.Mode;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.ThresholdBreach;
import io.logbench.testing.LoopbackMiniCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The generate job on a MiniCluster: a failing backend never holds back or restarts another. */
class GenerateJobITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      LoopbackMiniCluster.extension(4);

  private static final int LINES = 6_000;

  /** 6,000 app-json lines at 2,000 lines/s (3 s), 100-line batches, two stripes. */
  private static RunPlan plan() {
    return RunPlan.of(ConfigLoader.parse(String.join("\n",
        "dataset: {kind: app-json, lines: " + LINES + "}",
        "schedule: {kind: constant, rate: 2000}",
        "batch: {lines: 100}",
        "parallelism: 2",
        ""), "it"));
  }

  /** The MiniCluster's environment; a failure fails the test instead of restarting for ever. */
  private static StreamExecutionEnvironment env() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.configure(conf);
    return env;
  }

  private static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + timeout + " waiting for " + what + ".");
      }
      Thread.sleep(50); // polling a condition, not waiting instead of one
    }
  }

  @Test
  void aFailingBackendKeepsRetryingWhileTheHealthyOneGetsEveryLineOnSchedule() throws Exception {
    String id = UUID.randomUUID().toString();
    DeliverySettings retryFast = DeliverySettings.defaults().withRetry(
        new DeliverySettings.Retry(Duration.ofMillis(20), Duration.ofMillis(200), 2));
    GenerateJob job = new GenerateJob(plan(), List.of(
        BackendConfig.of(new Counting("healthy", id), retryFast),
        BackendConfig.of(new Failing("broken", id, 503), retryFast)), Duration.ofSeconds(1));
    StreamExecutionEnvironment env = env();
    Map<String, DataStream<BatchOutcome>> outcomes = job.build(env);
    assertThat(outcomes).containsOnlyKeys("healthy", "broken");
    outcomes.forEach((name, s) -> s.sinkTo(new OutcomeSink(id)).name("outcomes[" + name + "]").uid("outcomes-" + name));
    JobClient client = env.executeAsync("isolation");
    try {
      await("every line at the healthy backend", Duration.ofSeconds(25),
          () -> TestBackends.outcomes(id, "healthy").size() == LINES / 100);
      Map<Long, Integer> got = TestBackends.received(id, "healthy");
      assertThat(got).hasSize(LINES);
      assertThat(got.values()).containsOnly(1); // once each: no restart touched it
      assertThat(got.keySet()).allMatch(seq -> seq >= 0 && seq < LINES);
      for (BatchOutcome o : TestBackends.outcomes(id, "healthy")) {
        assertThat(o.status()).isEqualTo(Status.ACKED);
        assertThat(o.attempts()).isEqualTo(1);
      }
      // Isolation is shown by every healthy batch ending while the broken backend retries and ends
      // none (a shared operator would hold the healthy batches back behind the broken ones); how
      // soon they end is the machine's business, so no latency bound is asserted here.
      // meanwhile the broken backend has not given up, nor ended a batch
      long before = TestBackends.requests(id, "broken").get();
      await("more retries at the broken backend", Duration.ofSeconds(10),
          () -> TestBackends.requests(id, "broken").get() > before + 10);
      assertThat(TestBackends.outcomes(id, "broken")).isEmpty();
      assertThat(TestBackends.received(id, "broken")).isEmpty();
    } finally {
      client.cancel().get();
    }
  }

  @Test
  void aTaskFailureRestartsOnlyTheFailingBackendsPipeline() throws Exception {
    String id = UUID.randomUUID().toString();
    GenerateJob job = new GenerateJob(plan(), List.of(
        BackendConfig.of(new Counting("healthy", id), DeliverySettings.defaults()),
        BackendConfig.of(new TestBackends.Crashing("crashing", id, 30, 2), DeliverySettings.defaults())),
        Duration.ofMillis(500));
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    conf.setString("jobmanager.execution.failover-strategy", "region");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.configure(conf);
    job.build(env).forEach((name, s) -> s.sinkTo(new OutcomeSink(id)).name("outcomes[" + name + "]").uid("outcomes-" + name));
    env.execute("failover");

    // the crashing backend's tasks failed mid-run (request 30 is 1.5 s in, past the first
    // checkpoints), were restored, and delivered every line at least once
    assertThat(TestBackends.requests(id, "crashing").get()).isGreaterThan(LINES / 100);
    assertThat(TestBackends.opens(id, "crashing").get()).isGreaterThan(2);
    assertThat(TestBackends.received(id, "crashing")).hasSize(LINES);
    // the healthy backend's tasks started once and got every line exactly once
    assertThat(TestBackends.opens(id, "healthy").get()).isEqualTo(2);
    assertThat(TestBackends.received(id, "healthy")).hasSize(LINES);
    assertThat(TestBackends.received(id, "healthy").values()).containsOnly(1);
    assertThat(TestBackends.outcomes(id, "healthy")).hasSize(LINES / 100);
  }

  @Test
  void aLoadTestAbortsTheFailingBackendAfterItsThresholdWhileTheOtherCompletes() throws Exception {
    String id = UUID.randomUUID().toString();
    DeliverySettings loadTest = DeliverySettings.defaults().withMode(Mode.LOAD_TEST)
        .withThresholds(new DeliverySettings.Thresholds(0.01, Duration.ofSeconds(2), Duration.ofSeconds(1)));
    GenerateJob job = new GenerateJob(plan(), List.of(
        BackendConfig.of(new Counting("healthy", id), loadTest),
        BackendConfig.of(new Failing("broken", id, 503), loadTest)), Duration.ofSeconds(1));
    GenerateJob.Result result = job.run(env());

    BackendSummary healthy = result.backends().get(0);
    BackendSummary broken = result.backends().get(1);
    assertThat(healthy.backend()).isEqualTo("healthy");
    assertThat(healthy.acked()).isEqualTo(LINES);
    assertThat(healthy.allAcked()).isTrue();
    assertThat(healthy.failed()).isEmpty();
    assertThat(TestBackends.received(id, "healthy")).hasSize(LINES);

    assertThat(broken.acked()).isZero();
    assertThat(broken.lines()).isEqualTo(LINES);
    assertThat(broken.failed()).containsOnlyKeys("503", "aborted");
    assertThat(broken.failed().get("503") + broken.failed().get("aborted")).isEqualTo(LINES);
    assertThat(broken.statuses()).containsKeys(Status.FAILED, Status.ABORTED);
    // never retried: one request per batch that was not aborted
    assertThat(TestBackends.requests(id, "broken").get() * 100).isEqualTo(broken.failed().get("503"));
    assertThat(result.breaches()).isNotEmpty().allSatisfy(b -> {
      assertThat(b.backend()).isEqualTo("broken");
      assertThat(b.threshold()).isEqualTo("failed_rate > 0.01");
      assertThat(b.runOffsetMillis()).isGreaterThanOrEqualTo(1_000);
    });
    assertThat(result.breaches()).extracting(ThresholdBreach::subtask).doesNotHaveDuplicates();
    assertThat(result.allAcked()).isTrue(); // load-test backends do not count
  }
}
