package io.logbench.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.config.ConfigException;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.DeliverySettings.Mode;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.discard.DiscardBackend;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The {@code backends:} list, the common delivery keys and {@code run.checkpoint_interval}. */
class BackendsConfigTest {

  private static final String BASE = String.join("\n",
      "dataset: {kind: app-json, lines: 1000}",
      "schedule: {kind: constant, rate: 100}",
      "");

  private static RunConfig parse(String rest) {
    return ConfigLoader.parse(BASE + rest, "t");
  }

  private static void fails(String rest, String message) {
    assertThatThrownBy(() -> parse(rest)).isInstanceOf(ConfigException.class).hasMessage(message);
  }

  @Test
  void noBackendsAndDefaultCheckpointInterval() {
    RunConfig c = parse("");
    assertThat(c.backends()).isEmpty();
    assertThat(c.checkpointInterval()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void checkpointInterval() {
    assertThat(parse("run: {checkpoint_interval: 2s}").checkpointInterval()).isEqualTo(Duration.ofSeconds(2));
    fails("run: {checkpoint_interval: 0s}",
        "run.checkpoint_interval: \"0s\" is not valid; expected a duration such as 500ms, 30s, 2m, 1h or 1d, greater than 0.");
  }

  @Test
  void checkpointDirDefaultsToTheRunDirectorysAndIsNeverEmpty() {
    io.logbench.rundir.RunDir runDir = io.logbench.rundir.RunDir.of(Path.of("somewhere"));
    assertThat(parse("").checkpointDir(runDir).local()).contains(Path.of("somewhere", "checkpoints"));
    assertThat(parse("run: {checkpoint_dir: /data/chk}").checkpointDir(runDir).local()).contains(Path.of("/data/chk"));
    // a URI run directory's checkpoints go under it, through Flink's file systems
    io.logbench.rundir.RunDir remote = io.logbench.rundir.RunDir.of("s3://bucket/runs/x");
    assertThat(parse("").checkpointDir(remote).uri()).isEqualTo("s3://bucket/runs/x/checkpoints");
    assertThat(parse("run: {checkpoint_dir: 'hdfs://nn/chk'}").checkpointDir(runDir).uri()).isEqualTo("hdfs://nn/chk");
    fails("run: {checkpoint_dir: ''}", "run.checkpoint_dir: '' is empty; expected a directory for the generate job's"
        + " retained checkpoints (or leave the key out for <run dir>/checkpoints).");
  }

  @Test
  void discardBackendWithDefaults() {
    RunConfig c = parse("backends:\n  - kind: discard\n");
    assertThat(c.backends()).hasSize(1);
    BackendConfig b = c.backends().get(0);
    assertThat(b.spec()).isEqualTo(new DiscardBackend("discard"));
    assertThat(b.delivery()).isEqualTo(DeliverySettings.defaults());
    DeliverySettings d = b.delivery();
    assertThat(d.mode()).isEqualTo(Mode.AT_LEAST_ONCE);
    assertThat(d.inFlight()).isEqualTo(4);
    assertThat(d.timeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.retry()).isEqualTo(new DeliverySettings.Retry(Duration.ofMillis(100), Duration.ofSeconds(30), 2));
    assertThat(d.thresholds()).isEqualTo(new DeliverySettings.Thresholds(0.01, Duration.ofSeconds(2), Duration.ofSeconds(30)));
  }

  @Test
  void everyDeliveryKey() {
    RunConfig c = parse(String.join("\n",
        "backends:",
        "  - {kind: discard, name: a, in_flight: 8, timeout: 3s, retry: {initial: 50ms, max: 5s, multiplier: 1.5}}",
        "  - {kind: discard, name: b, delivery: load-test, thresholds: {failed_rate: 0.05, p95: 500ms, delay: 0s}}",
        ""));
    assertThat(c.backends().get(0).delivery()).isEqualTo(new DeliverySettings(Mode.AT_LEAST_ONCE, 8,
        Duration.ofSeconds(3), new DeliverySettings.Retry(Duration.ofMillis(50), Duration.ofSeconds(5), 1.5),
        DeliverySettings.DEFAULT_THRESHOLDS));
    assertThat(c.backends().get(1).delivery().mode()).isEqualTo(Mode.LOAD_TEST);
    assertThat(c.backends().get(1).delivery().thresholds())
        .isEqualTo(new DeliverySettings.Thresholds(0.05, Duration.ofMillis(500), Duration.ZERO));
  }

  @Test
  void duplicateNamesNameBothPositions() {
    fails("backends:\n  - {kind: discard, name: x}\n  - {kind: discard}\n  - {kind: discard, name: x}\n",
        "backends[2].name: backend name \"x\" is already used by backends[0]; give each backend a unique name.");
  }

  @Test
  void nameDefaultsToKindSoTwoUnnamedOfOneKindClash() {
    fails("backends:\n  - {kind: discard}\n  - {kind: discard}\n",
        "backends[1].name: backend name \"discard\" is already used by backends[0]; give each backend a unique name.");
  }

  @Test
  void unknownKind() {
    fails("backends:\n  - {kind: graylog}\n",
        "backends[0].kind: \"graylog\" is not valid; expected one of discard, loki, victorialogs, elasticsearch, opensearch, splunk, kafka, files, file, syslog, otlp.");
  }

  @Test
  void missingKind() {
    fails("backends:\n  - {name: x}\n", "backends[0].kind: missing; expected one of discard, loki, victorialogs, elasticsearch, opensearch, splunk, kafka, files, file, syslog, otlp.");
  }

  @Test
  void unknownKeyOfABackend() {
    fails("backends:\n  - {kind: discard, url: 'http://127.0.0.1'}\n",
        "backends[0].url: unknown key; expected one of kind, name, query_timeout, delivery, in_flight, timeout, retry, thresholds, visibility.");
  }

  @Test
  void badName() {
    fails("backends:\n  - {kind: discard, name: 'a b'}\n",
        "backends[0].name: \"a b\" is not valid; expected a backend name of letters, digits, '.', '_' or '-'.");
  }

  @Test
  void backendsMustBeAList() {
    fails("backends: {kind: discard}\n", "backends: \"a mapping\" is not valid; expected a list of mappings.");
  }

  @Test
  void badDeliveryMode() {
    fails("backends:\n  - {kind: discard, delivery: exactly-once}\n",
        "backends[0].delivery: \"exactly-once\" is not valid; expected one of at-least-once, load-test.");
  }

  @Test
  void inFlightRange() {
    fails("backends:\n  - {kind: discard, in_flight: 0}\n",
        "backends[0].in_flight: 0 is not valid; expected a number of requests in flight per task from 1 to 10000.");
  }

  @Test
  void thresholdsOnlyInLoadTests() {
    fails("backends:\n  - {kind: discard, thresholds: {p95: 1s}}\n",
        "backends[0].thresholds: thresholds apply to load tests only; remove thresholds or set"
            + " backends[0].delivery to load-test.");
  }

  @Test
  void retryOnlyInAtLeastOnce() {
    fails("backends:\n  - {kind: discard, delivery: load-test, retry: {max: 1s}}\n",
        "backends[0].retry: a load test never retries; remove retry or set backends[0].delivery to at-least-once.");
  }

  @Test
  void retryKeys() {
    fails("backends:\n  - {kind: discard, retry: {initial: 1s, max: 500ms}}\n",
        "backends[0].retry.max: \"500ms\" is not valid; expected a wait of at least backends[0].retry.initial (1s).");
    fails("backends:\n  - {kind: discard, retry: {multiplier: 0.5}}\n",
        "backends[0].retry.multiplier: 0.5 is not valid; expected a backoff multiplier of at least 1.");
    fails("backends:\n  - {kind: discard, retry: {limit: 3}}\n",
        "backends[0].retry.limit: unknown key; expected one of initial, max, multiplier.");
  }

  @Test
  void thresholdKeys() {
    fails("backends:\n  - {kind: discard, delivery: load-test, thresholds: {failed_rate: 2}}\n",
        "backends[0].thresholds.failed_rate: 2.0 is not valid; expected a rate of failed requests from 0 to 1, such as 0.01 for 1%.");
    fails("backends:\n  - {kind: discard, delivery: load-test, thresholds: {p99: 1s}}\n",
        "backends[0].thresholds.p99: unknown key; expected one of failed_rate, p95, delay.");
  }

  @Test
  void visibilityDefaultsRunWideAndPerBackendKeyByKey() {
    RunConfig plain = parse("backends:\n  - kind: discard\n");
    assertThat(plain.visibility()).isEqualTo(io.logbench.sink.VisibilitySettings.defaults());
    assertThat(plain.visibility().sample()).isEqualTo(100);
    assertThat(plain.backends().get(0).common().visibility(plain.visibility())).isEqualTo(plain.visibility());

    RunConfig c = parse(String.join("\n",
        "visibility: {sample: 10, poll: 1s}",
        "backends:",
        "  - {kind: discard, name: a}",
        "  - {kind: discard, name: b, visibility: {sample: 0, timeout: 5s}}",
        ""));
    io.logbench.sink.VisibilitySettings run = c.visibility();
    assertThat(run).isEqualTo(new io.logbench.sink.VisibilitySettings(10, Duration.ofSeconds(1), Duration.ofSeconds(60)));
    assertThat(c.backends().get(0).common().visibility(run)).isEqualTo(run);
    io.logbench.sink.VisibilitySettings b = c.backends().get(1).common().visibility(run);
    assertThat(b).isEqualTo(new io.logbench.sink.VisibilitySettings(0, Duration.ofSeconds(1), Duration.ofSeconds(5)));
    assertThat(b.enabled()).isFalse();
    assertThat(run.sampled(20)).isTrue();
    assertThat(run.sampled(21)).isFalse();
  }

  @Test
  void badVisibilityKeysNameTheKeyAndWhatIsExpected() {
    fails("visibility: {sample: -1}", "visibility.sample: -1 is not valid; expected one batch in N to sample: 0 (off)"
        + " or a whole number of batches from 1 (every batch).");
    fails("visibility: {every: 3}", "visibility.every: unknown key; expected one of sample, poll, timeout.");
    fails("backends:\n  - {kind: discard, visibility: {poll: 0s}}\n", "backends[0].visibility.poll: \"0s\" is not"
        + " valid; expected a duration such as 500ms, 30s, 2m, 1h or 1d, greater than 0.");
  }
}
