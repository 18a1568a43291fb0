package io.logbench.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.config.ConfigException;
import io.logbench.dataset.nginx.NginxMonthDataset;
import io.logbench.schedule.TimestampMode;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.loki.LokiBackend;
import io.logbench.sink.victorialogs.VictoriaLogsBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Every run file in config/ loads, and every kind of mistake is named with its key and value. */
class ConfigLoaderTest {

  static final Path CONFIG = Path.of("..", "config");

  static RunConfig parse(String yaml) {
    return ConfigLoader.parse(yaml, "test");
  }

  static void fails(String yaml, String message) {
    assertThatThrownBy(() -> parse(yaml)).isInstanceOf(ConfigException.class).hasMessage(message);
  }

  static final String NGINX = "dataset:\n  kind: nginx-month\n";

  @Test
  void shippedRunFilesLoad() {
    RunConfig quick = ConfigLoader.load(CONFIG.resolve("quickstart.yaml"));
    assertThat(quick.name()).isEqualTo("quickstart");
    assertThat(quick.dataset().mode()).isEqualTo(NginxMonthDataset.Mode.PYTHON_COMPATIBLE);
    assertThat(quick.dataset().from()).isEqualTo(Instant.parse("2021-05-01T03:00:00Z"));
    assertThat(quick.dataset().until()).isEqualTo(Instant.parse("2021-05-01T04:00:00Z"));
    assertThat(quick.schedule().kind()).isEqualTo("replay");

    RunConfig month = ConfigLoader.load(CONFIG.resolve("seed004-month.yaml"));
    assertThat(month.dataset().until()).isEqualTo(Instant.parse("2021-06-01T03:00:00Z"));
    assertThat(month.schedule().paced()).isFalse();

    RunConfig ladder = ConfigLoader.load(CONFIG.resolve("seed000-ladder.yaml"));
    assertThat(ladder.dataset().kind()).isEqualTo("app-json");
    assertThat(ladder.schedule().steps()).containsExactlyElementsOf(ScheduleSpec.DEFAULT_STEPS);
    assertThat(ladder.schedule().ramp()).isEqualTo(Duration.ofSeconds(30));
    assertThat(ladder.schedule().hold()).isEqualTo(Duration.ofMinutes(2));
    assertThat(ladder.schedule().tick()).isEqualTo(Duration.ofMillis(5));
    assertThat(ladder.timestamps()).isEqualTo(TimestampMode.NOW);
    assertThat(ladder.backends()).extracting(b -> b.name()).containsExactly("loki", "victorialogs");
    var seed000 = new DeliverySettings.Thresholds(0.01, Duration.ofSeconds(2), Duration.ofSeconds(30));
    for (var b : ladder.backends()) {
      assertThat(b.delivery().mode()).isEqualTo(DeliverySettings.Mode.LOAD_TEST);
      assertThat(b.delivery().thresholds()).isEqualTo(seed000);
    }
    if (System.getenv("LOKI_URL") == null && System.getProperty("LOKI_URL") == null) {
      assertThat(((LokiBackend) ladder.backends().get(0).spec()).url()).hasToString("http://127.0.0.1:3100");
    }
    if (System.getenv("VL_URL") == null && System.getProperty("VL_URL") == null) {
      assertThat(((VictoriaLogsBackend) ladder.backends().get(1).spec()).url()).hasToString("http://127.0.0.1:9428");
    }
  }

  @Test
  void defaults() {
    RunConfig c = parse(NGINX);
    assertThat(c.name()).isEqualTo("test");
    assertThat(c.batchLines()).isEqualTo(100);
    assertThat(c.window()).isEqualTo(Duration.ofMinutes(1));
    assertThat(c.schedule().kind()).isEqualTo("max");
    assertThat(c.timestamps()).isEqualTo(TimestampMode.ORIGINAL);
    assertThat(c.dataset().seed()).isEqualTo(8);
    assertThat(c.zone().getId()).isEqualTo("America/Sao_Paulo");
  }

  @Test
  void theParallelismLeftToLogbenchIsOneSubtaskPerThousandRequestsASecondAtThePeak() {
    String app = "dataset:\n  kind: app-json\n  lines: 1000\n";
    // 100-line requests: one subtask up to 100,000 lines/s, at the peak of a ladder too
    assertThat(parse(app + "schedule: {kind: constant, rate: 20000}\n").parallelism()).isEqualTo(1);
    assertThat(parse(app + "schedule: {kind: constant, rate: 100000}\n").parallelism()).isEqualTo(1);
    assertThat(parse(app + "schedule: {kind: constant, rate: 100001}\n").parallelism()).isEqualTo(2);
    assertThat(parse(app + "schedule: {kind: ladder, steps: [5000, 250000, 10000]}\n").parallelism()).isEqualTo(3);
    // requests, not lines: 10-line requests at 20,000 lines/s are 2,000 requests a second
    assertThat(parse(app + "batch: {lines: 10}\nschedule: {kind: constant, rate: 20000}\n").parallelism())
        .isEqualTo(2);
    assertThat(parse(app + "parallelism: auto\nschedule: {kind: constant, rate: 20000}\n").parallelism())
        .isEqualTo(1);
    // a replay's rate follows the dataset, an unpaced one the backend: the default
    assertThat(parse(NGINX).parallelism()).isEqualTo(RunConfig.DEFAULT_PARALLELISM);
    assertThat(parse(NGINX + "schedule: {kind: replay, speedup: 60}\n").parallelism())
        .isEqualTo(RunConfig.DEFAULT_PARALLELISM);
    // dataset and publish make lines as fast as they can: the default unless the file says
    RunConfig auto = parse(app + "schedule: {kind: constant, rate: 20000}\n");
    assertThat(auto.parallelismAuto()).isTrue();
    assertThat(auto.writerParallelism()).isEqualTo(RunConfig.DEFAULT_PARALLELISM);
    RunConfig one = parse(app + "parallelism: 1\nschedule: {kind: constant, rate: 20000}\n");
    assertThat(one.parallelismAuto()).isFalse();
    assertThat(one.writerParallelism()).isEqualTo(1);
    assertThat(one.withWindow(Duration.ofMinutes(5)).parallelismAuto()).isFalse();
    assertThat(auto.withWindow(Duration.ofMinutes(5)).writerParallelism()).isEqualTo(RunConfig.DEFAULT_PARALLELISM);
  }

  @Test
  void aPacingTickMayBeZeroOrLonger() {
    assertThat(parse(NGINX + "schedule:\n  kind: constant\n  rate: 5\n  tick: 0s\n").schedule().tick()).isZero();
    assertThat(parse(NGINX + "schedule:\n  kind: replay\n  tick: 20ms\n").schedule().tick())
        .isEqualTo(Duration.ofMillis(20));
  }

  @Test
  void missingFileIsNamed() {
    assertThatThrownBy(() -> ConfigLoader.load(Path.of("no/such.yaml")))
        .hasMessage("no/such.yaml: no such run file.");
  }

  @Test
  void fileNameIsPrefixedToEveryError() {
    assertThatThrownBy(() -> ConfigLoader.load(CONFIG.resolve("..").resolve("pom.xml")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("../config/../pom.xml: ");
  }

  @Test
  void unknownKeysAreNamedWithWhatIsAllowed() {
    fails(NGINX + "  sede: 8\n",
        "dataset.sede: unknown key; expected one of kind, mode, seed, from, until.");
    fails(NGINX + "shedule:\n  kind: max\n",
        "shedule: unknown key; expected one of name, dataset, schedule, timestamps, batch, window, zone, parallelism, run, backends, writes, visibility, canary.");
    fails(NGINX + "schedule:\n  kind: constant\n  rate: 5\n  hold: 2m\n",
        "schedule.hold: unknown key; expected one of kind, rate, duration, tick.");
    fails(NGINX + "schedule:\n  kind: max\n  tick: 5ms\n",
        "schedule.tick: unknown key; expected one of kind.");
  }

  @Test
  void wrongTypesAreNamed() {
    fails(NGINX + "schedule:\n  kind: constant\n  rate: fast\n",
        "schedule.rate: \"fast\" is not valid; expected lines per second, greater than 0.");
    fails(NGINX + "batch:\n  lines: 1.5\n",
        "batch.lines: 1.5 is not valid; expected a number of lines per batch from 1 to 100000.");
    fails(NGINX + "  seed: [1, 2]\n", "dataset.seed: \"a list\" is not valid; expected an integer seed.");
    fails("dataset: nginx-month\n", "dataset: \"nginx-month\" is not valid; expected a mapping of keys.");
  }

  @Test
  void impossibleValuesAreNamed() {
    fails(NGINX + "schedule:\n  kind: constant\n  rate: -5\n",
        "schedule.rate: -5 is not valid; expected lines per second, greater than 0.");
    fails(NGINX + "schedule:\n  kind: ladder\n  steps: [5000, 0]\n",
        "schedule.steps[1]: 0 is not valid; expected lines per second, greater than 0.");
    fails(NGINX + "schedule:\n  kind: ladder\n  steps: [5000.5]\n",
        "schedule.steps[0]: 5000.5 is not valid; expected a whole number of lines per second, greater than 0.");
    fails(NGINX + "schedule:\n  kind: ladder\n  ramp: 3m\n  step: 2m\n",
        "schedule.ramp: \"3m\" is not valid; expected a ramp shorter than a step (schedule.step is 2m).");
    fails(NGINX + "schedule:\n  kind: ladder\n  step: 2m\n  hold: 2m\n",
        "schedule.step and schedule.hold: give one of them; a step lasts its ramp plus its hold.");
    fails(NGINX + "schedule:\n  kind: ladder\n  ramp: soon\n",
        "schedule.ramp: \"soon\" is not valid; expected a duration such as 500ms, 30s, 2m, 1h or 1d.");
    fails(NGINX + "schedule:\n  kind: constant\n  rate: 5\n  tick: 2s\n",
        "schedule.tick: \"2s\" is not valid; expected a pacing tick from 0 (every batch at its due time) to 1s.");
    fails(NGINX + "schedule:\n  kind: ladder\n  tick: often\n",
        "schedule.tick: \"often\" is not valid; expected a duration such as 500ms, 30s, 2m, 1h or 1d.");
    fails(NGINX + "schedule:\n  kind: replay\n  speedup: 0\n",
        "schedule.speedup: 0 is not valid; expected a speed-up factor greater than 0.");
    fails(NGINX + "schedule:\n  kind: warp\n",
        "schedule.kind: \"warp\" is not valid; expected one of constant, ladder, replay, max.");
    fails(NGINX + "parallelism: 0\n",
        "parallelism: 0 is not valid; expected a Flink parallelism from 1 to 1024, or auto.");
    fails(NGINX + "parallelism: many\n",
        "parallelism: \"many\" is not valid; expected a Flink parallelism from 1 to 1024, or auto.");
    fails(NGINX + "zone: Mars/Olympus\n",
        "zone: \"Mars/Olympus\" is not valid; expected a time zone such as UTC or America/Sao_Paulo.");
  }

  @Test
  void windowMustDivideADay() {
    fails(NGINX + "window: 7m\n",
        "window: \"7m\" is not valid; expected a window size that divides a day (24h), such as 1m, 5m, 1h or 1d.");
    fails(NGINX + "window: 0s\n",
        "window: \"0s\" is not valid; expected a duration such as 500ms, 30s, 2m, 1h or 1d, greater than 0.");
    assertThat(parse(NGINX + "window: 1d\n").window()).isEqualTo(Duration.ofDays(1));
    assertThat(parse(NGINX + "window: 90s\n").window()).isEqualTo(Duration.ofSeconds(90));
    assertThatThrownBy(() -> parse(NGINX).withWindow(Duration.ofMinutes(7)))
        .hasMessage("--window: \"7m\" is not valid; expected a window size that divides a day (24h), such as 1m, 5m, 1h or 1d.");
  }

  @Test
  void slicesMustLieInTheMonthOnWholeMinutes() {
    fails(NGINX + "  from: \"2021-04-30T00:00:00-03:00\"\n",
        "dataset.from: \"2021-04-30T00:00-03:00\" is not valid; expected a time in the seed 004 month,"
            + " 2021-05-01T00:00:00-03:00 to 2021-06-01T00:00:00-03:00, on a whole minute.");
    fails(NGINX + "  from: \"2021-05-01T00:00:30-03:00\"\n",
        "dataset.from: \"2021-05-01T00:00:30-03:00\" is not valid; expected a time in the seed 004 month,"
            + " 2021-05-01T00:00:00-03:00 to 2021-06-01T00:00:00-03:00, on a whole minute.");
    fails(NGINX + "  from: \"2021-05-02T00:00:00-03:00\"\n  until: \"2021-05-01T00:00:00-03:00\"\n",
        "dataset.until: \"2021-05-01T00:00-03:00\" is not valid; expected a time after dataset.from (2021-05-02T00:00-03:00).");
    fails(NGINX + "  from: yesterday\n",
        "dataset.from: \"yesterday\" is not valid; expected an ISO-8601 time with an offset, such as 2021-05-01T00:00:00-03:00.");
  }

  @Test
  void crossBlockRules() {
    fails(NGINX + "timestamps: now\n",
        "timestamps: \"now\" is not valid; expected original with schedule.kind max: now timestamps follow"
            + " the schedule's times, and max has none.");
    fails("dataset:\n  kind: app-json\nschedule:\n  kind: constant\n  rate: 100\n",
        "dataset.lines: missing; expected a number of lines: app-json has no end of its own unless the"
            + " schedule is a ladder or a constant rate with a duration.");
    fails("dataset:\n  kind: app-json\n  mode: fast\n",
        "dataset.mode: unknown key; expected one of kind, seed, lines, streams, start, rate.");
    fails("dataset:\n  kind: nginx\n",
        "dataset.kind: \"nginx\" is not valid; expected one of nginx-month, app-json, kafka.");
    fails("name: quick\n", "dataset: missing; expected a dataset block with kind nginx-month, app-json or kafka.");
  }

  @Test
  void variablesComeFromTheEnvironmentWithDefaults() {
    String yaml = NGINX + "parallelism: ${P:-3}\nrun:\n  dir: ${DIR}/x\n";
    RunConfig c = ConfigLoader.parse(yaml, "t", name -> name.equals("DIR") ? "/data" : null);
    assertThat(c.parallelism()).isEqualTo(3);
    assertThat(c.runDir()).isEqualTo(io.logbench.rundir.RunDir.of(Path.of("/data/x")));
    assertThat(ConfigLoader.parse(yaml, "t", name -> name.equals("P") ? "5" : "/d").parallelism()).isEqualTo(5);
    assertThatThrownBy(() -> ConfigLoader.parse(yaml, "t", name -> null))
        .hasMessage("line 5: ${DIR} is not set in the environment; set it or write ${DIR:-default}.");
  }

  @Test
  void yamlMistakesAreLocated() {
    fails(NGINX + "  mode: [\n",
        "not valid YAML at line 3, column 10: while parsing a flow node;"
            + " expected the node content, but found '<stream end>'");
    fails(NGINX + "  seed: 1\n  seed: 2\n", "not valid YAML at line 4, column 7: Duplicate field 'seed'");
    fails("", "empty run file; expected at least a dataset block.");
  }
}
