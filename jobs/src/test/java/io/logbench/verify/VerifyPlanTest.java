package io.logbench.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.config.ConfigException;
import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link VerifyPlan}'s windows: the verifier's window (--window or the run file's) against the
 * ledger's (run.json, else the ledger's rows, else the run file's), and the errors for a window
 * that is not a whole multiple of the ledger's or off its grid.
 */
class VerifyPlanTest {

  private static final ZoneId SAO_PAULO = ZoneId.of("America/Sao_Paulo");
  /** 2021-05-01T22:00-03:00. */
  private static final long START = 1_619_917_200_000L;
  private static final long MINUTE = 60_000L;
  private static final long HOUR = 3_600_000L;
  private static final long DAY = 86_400_000L;

  @TempDir Path runDir;

  /** Four hours of one line a second from 22:00 in Sao Paulo: two local days. */
  private static RunConfig config(String window) {
    return ConfigLoader.parse(String.join("\n",
        "name: windows",
        "dataset: {kind: app-json, lines: 14400, streams: 5, start: \"2021-05-01T22:00:00-03:00\", rate: 1}",
        "schedule: {kind: max}",
        "timestamps: original",
        "window: " + window,
        "zone: America/Sao_Paulo",
        "backends:",
        "  - {kind: loki, url: 'http://127.0.0.1:9', timeout: 5s}",
        ""), "test");
  }

  private void runJson(String extra) throws Exception {
    Files.writeString(runDir.resolve(VerifyPlan.RUN_JSON), "{\"runStartMillis\": " + START + extra + "}");
  }

  private void ledgerOfMinutes(long firstStart, int minutes) throws Exception {
    List<LedgerEntry> rows = new ArrayList<>();
    for (int k = 0; k < minutes; k++) {
      long s = firstStart + k * MINUTE;
      rows.add(new LedgerEntry("loki", s, s + MINUTE, 60, 60, 60, Map.of()));
    }
    LedgerFiles.writeCsv(runDir, rows, SAO_PAULO);
  }

  private static VerifySettings oneShot() {
    return VerifySettings.oneShot();
  }

  @Test
  void hoursAndDaysOverAMinuteLedgerStartOnLocalMidnightAndItsHours() throws Exception {
    runJson(", \"windowMillis\": 60000, \"zone\": \"America/Sao_Paulo\"");
    VerifyPlan minutes = VerifyPlan.of(config("1m"), runDir, oneShot());
    assertThat(minutes.windowMillis()).isEqualTo(MINUTE);
    assertThat(minutes.targets().get(0).windows()).isEqualTo(240);
    assertThat(minutes.targets().get(0).firstStart()).isEqualTo(START);

    VerifyPlan hours = VerifyPlan.of(config("1m"), runDir, oneShot(), Duration.ofHours(1));
    assertThat(hours.windowMillis()).isEqualTo(HOUR);
    assertThat(hours.ledgerWindowMillis()).isEqualTo(MINUTE);
    assertThat(hours.targets().get(0).starts())
        .containsExactly(START, START + HOUR, START + 2 * HOUR, START + 3 * HOUR);
    assertThat(hours.targets().get(0).ledgerWindowMillis()).isEqualTo(MINUTE);

    VerifyPlan days = VerifyPlan.of(config("1d"), runDir, oneShot());
    // 2021-05-01T00:00-03:00 and 2021-05-02T00:00-03:00
    assertThat(days.targets().get(0).starts()).containsExactly(START - 22 * HOUR, START + 2 * HOUR);
    assertThat(days.targets().get(0).windowMillis()).isEqualTo(DAY);
  }

  @Test
  void aWindowThatIsNotAWholeMultipleOfTheLedgersIsAConfigErrorNamingBoth() throws Exception {
    runJson(", \"windowMillis\": 60000, \"zone\": \"America/Sao_Paulo\"");
    assertThatThrownBy(() -> VerifyPlan.of(config("1m"), runDir, oneShot(), Duration.ofSeconds(90)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("window: 1m30s (--window) is not a whole multiple of the run's ledger window 1m (from "
            + runDir.resolve("run.json") + "'s windowMillis); the ledger counts acknowledged lines per 1m window,"
            + " so verify can only add up whole ledger windows: expected 1m or a multiple of it.");
    assertThatThrownBy(() -> VerifyPlan.of(config("30s"), runDir, oneShot()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("window: 30s (the run file's window) is not a whole multiple of the run's ledger"
            + " window 1m");
  }

  @Test
  void anOlderRunDirectoryTakesTheLedgersWindowFromItsRows() throws Exception {
    runJson("");
    ledgerOfMinutes(START, 240);
    VerifyPlan hours = VerifyPlan.of(config("1h"), runDir, oneShot());
    assertThat(hours.ledgerWindowMillis()).isEqualTo(MINUTE);
    assertThat(hours.targets().get(0).windows()).isEqualTo(4);
    assertThatThrownBy(() -> VerifyPlan.of(config("1h"), runDir, oneShot(), Duration.ofSeconds(150)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("run's ledger window 1m (from the ledger's rows)");
  }

  @Test
  void withNeitherTheLedgersWindowIsTheRunFilesOwn() throws Exception {
    runJson("");
    VerifyPlan plan = VerifyPlan.of(config("10m"), runDir, VerifySettings.continuousDefaults());
    assertThat(plan.ledgerWindowMillis()).isEqualTo(10 * MINUTE);
    assertThatThrownBy(() -> VerifyPlan.of(config("10m"), runDir, oneShot(), Duration.ofMinutes(15)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is not a whole multiple of the run's ledger window 10m (from the run file's window");
  }

  @Test
  void windowsOffTheLedgersGridAreAConfigError() throws Exception {
    // a ledger of minutes that start 30 s past the minute: no hour of the zone starts on one
    runJson(", \"windowMillis\": 60000, \"zone\": \"America/Sao_Paulo\"");
    ledgerOfMinutes(START + 30_000, 10);
    assertThatThrownBy(() -> VerifyPlan.of(config("1m"), runDir, oneShot(), Duration.ofHours(1)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("window: 1h windows (--window) in zone America/Sao_Paulo start at 2021-05-01T03:00:00Z, which is"
            + " not the start of any of the run's ledger windows of 1m (from " + runDir.resolve("run.json")
            + "'s windowMillis; one starts at 2021-05-02T01:00:30Z); expected a window and zone whose windows start"
            + " on the ledger's grid.");
  }

  @Test
  void aRunJsonZoneThatIsNoZoneIsAConfigError() throws Exception {
    runJson(", \"windowMillis\": 60000, \"zone\": \"Mars/Olympus\"");
    assertThatThrownBy(() -> VerifyPlan.of(config("1m"), runDir, oneShot()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(runDir.resolve("run.json") + ": zone: Mars/Olympus is not a time zone; expected an id such as"
            + " America/Sao_Paulo or UTC.");
  }
}
