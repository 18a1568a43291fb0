package io.logbench.canary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.config.ConfigException;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The canary: block and what a canary's run file must be, with the errors that name the key. */
class CanarySettingsTest {

  private static final String HEAD = "dataset: {kind: app-json}\nschedule: {kind: constant, rate: 10}\n"
      + "backends: [{kind: discard}]\n";

  private static RunConfig parse(String text) {
    return ConfigLoader.parse(text, "c");
  }

  @Test
  void anEmptyBlockTakesTheDefaultsAndNowTimestamps() {
    RunConfig c = parse(HEAD + "canary: {}\n");
    assertThat(c.canary()).isEqualTo(CanarySettings.defaults());
    assertThat(c.timestamps().key()).isEqualTo("now");
    assertThat(c.canary().horizon()).isEqualTo(Duration.ofSeconds(30 + 300 + 5 + 60));
    assertThat(c.canary().spotAges()).containsExactly(Duration.ofHours(1), Duration.ofHours(6), Duration.ofHours(24));
  }

  @Test
  void keysAreRead() {
    RunConfig c = parse(HEAD + "canary: {settle: 2s, max_wait: 10s, recheck: 1s, retention: 1d, drill: 5,"
        + " spot_checks: {ages: [1m, 1h], older_per_hour: 0}}\n");
    assertThat(c.canary()).isEqualTo(new CanarySettings(Duration.ofSeconds(2), Duration.ofSeconds(10),
        Duration.ofSeconds(1), 5, Duration.ofDays(1), List.of(Duration.ofMinutes(1), Duration.ofHours(1)), 0));
  }

  @Test
  void wrongValuesNameTheirKey() {
    assertThatThrownBy(() -> parse(HEAD + "canary: {settel: 2s}\n")).isInstanceOf(ConfigException.class)
        .hasMessage("canary.settel: unknown key; expected one of settle, max_wait, recheck, drill, retention,"
            + " spot_checks.");
    assertThatThrownBy(() -> parse(HEAD + "canary: {spot_checks: {ages: [10s]}}\n"))
        .hasMessage("canary: spot_checks.ages[0]: \"10s\" is not valid; expected an age past settle + max_wait"
            + " (5m30s): a window's verdict is final only then.");
    assertThatThrownBy(() -> parse(HEAD + "canary: {retention: 12h}\n"))
        .hasMessage("canary: spot_checks.ages[2]: \"1d\" is not valid; expected an age within retention (12h):"
            + " older windows' verdicts are deleted.");
    assertThatThrownBy(() -> parse(HEAD + "canary: {spot_checks: {ages: [6h, 1h]}}\n"))
        .hasMessage("canary: spot_checks.ages[1]: \"1h\" is not valid; expected ages in ascending order, each after"
            + " 6h.");
  }

  @Test
  void aCanarysRunFileIsAConstantRateWithoutEndOfAppJsonLinesStampedNow() {
    assertThatThrownBy(() -> parse("dataset: {kind: nginx-month}\nschedule: {kind: constant, rate: 10}\ncanary: {}\n"))
        .hasMessage("dataset.kind: \"nginx-month\" is not valid; expected app-json for a canary (canary: is set):"
            + " its lines carry their sequence number and the run id.");
    assertThatThrownBy(() -> parse("dataset: {kind: app-json}\nschedule: {kind: ladder}\ncanary: {}\n"))
        .hasMessage("schedule.kind: \"ladder\" is not valid; expected constant for a canary (canary: is set).");
    assertThatThrownBy(() -> parse("dataset: {kind: app-json}\nschedule: {kind: constant, rate: 10, duration: 1h}\n"
        + "canary: {}\n")).hasMessage("schedule.duration: a canary runs until it is stopped; leave the key out.");
    assertThatThrownBy(() -> parse(HEAD + "timestamps: original\ncanary: {}\n"))
        .hasMessage("timestamps: \"original\" is not valid; expected now for a canary (canary: is set): each line"
            + " carries its scheduled time, so windows follow the schedule.");
    assertThatThrownBy(() -> parse("dataset: {kind: app-json, lines: 5}\nschedule: {kind: constant, rate: 10}\n"
        + "canary: {}\n")).hasMessage("dataset.lines: a canary runs until it is stopped; leave the key out.");
  }

  @Test
  void theCanarysLinesCarryTheRunIdAndTheirSeqInTheirBody() {
    RunConfig c = parse(HEAD + "canary: {}\n");
    var plan = io.logbench.plan.RunPlan.canary(c, "c-20260101-000000-abcd");
    String line = new String(((io.logbench.dataset.app.AppJsonDataset) plan.dataset()).line(7),
        java.nio.charset.StandardCharsets.UTF_8);
    assertThat(line).startsWith("{\"namespace\":\"loadtest\",\"container\":\"k6-0\","
        + "\"logbench_run\":\"c-20260101-000000-abcd\",").endsWith(",\"seq\":7}");
    assertThat(plan.duration()).isGreaterThan(Duration.ofDays(36_000));
  }
}
