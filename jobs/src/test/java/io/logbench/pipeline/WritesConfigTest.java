package io.logbench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.logbench.config.ConfigException;
import io.logbench.plan.ConfigLoader;
import io.logbench.plan.RunConfig;
import io.logbench.sink.BackendConfig;
import io.logbench.sink.Capabilities;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.logfile.LogFileBackend;
import io.logbench.sink.logfile.Rotation;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WritesConfigTest {

  private static final String HEAD = String.join("\n",
      "dataset: {kind: app-json, seed: 1}",
      "schedule: {kind: constant, rate: 10, duration: 1m}",
      "timestamps: now",
      "");

  private static RunConfig parse(String rest) {
    return ConfigLoader.parse(HEAD + rest, "test");
  }

  @Test
  void countBlocksNamingOneWriteShareItsSettingsAndWriteOnce() {
    RunConfig c = parse(String.join("\n",
        "writes:",
        "  - {name: app, kind: file, path: /tmp/app.log, rotate: {size: 10MB, every: 1h, mode: copytruncate,"
            + " keep: 3}, delivery: load-test}",
        "backends:",
        "  - {kind: loki, url: \"http://127.0.0.1:1\", labels: {job: fluent-bit}, write: app, lag: 10m}",
        "  - {kind: victorialogs, url: \"http://127.0.0.1:1\", write: app}",
        ""));
    assertThat(c.backends()).hasSize(2);
    BackendConfig loki = c.backends().get(0);
    PipelineSpec p = (PipelineSpec) loki.spec();
    assertThat(p.name()).isEqualTo("loki");
    assertThat(p.kind()).isEqualTo("loki");
    assertThat(p.lag()).isEqualTo(Duration.ofMinutes(10));
    assertThat(p.write().name()).isEqualTo("app");
    assertThat(p.capabilities().lineIds()).isEqualTo(Capabilities.LineIds.SEQUENCE);
    assertThat(loki.delivery().mode()).isEqualTo(DeliverySettings.Mode.LOAD_TEST);
    LogFileBackend file = (LogFileBackend) p.write().spec();
    assertThat(file.rotation()).isEqualTo(
        new Rotation(10L * 1024 * 1024, Duration.ofHours(1), Rotation.Mode.COPYTRUNCATE, 3));
    assertThat(c.backends().get(1).spec().write()).isSameAs(p.write());
    assertThat(((PipelineSpec) c.backends().get(1).spec()).lag()).isEqualTo(PipelineSpec.DEFAULT_LAG);
  }

  @Test
  void anInlineWriteGoesByItsBlocksName() {
    RunConfig c = parse(String.join("\n",
        "backends:",
        "  - {kind: victorialogs, url: \"http://127.0.0.1:1\", name: vl, write: {kind: file, path: /tmp/a.log}}",
        ""));
    BackendConfig vl = c.backends().get(0);
    assertThat(vl.spec().write().name()).isEqualTo("vl");
    assertThat(((LogFileBackend) vl.spec().write().spec()).rotation().rotates()).isFalse();
  }

  @Test
  void mistakesAreNamedWithTheirKeyAndWhatWasExpected() {
    assertThatThrownBy(() -> parse("backends:\n  - {kind: victorialogs, write: app}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("backends[0].write: \"app\"").hasMessageContaining("writes: list, which has none");
    assertThatThrownBy(() -> parse("writes:\n  - {name: app, kind: file, path: /a}\n"
        + "backends:\n  - {kind: victorialogs, url: \"http://127.0.0.1:1\", write: app, delivery: load-test}\n"))
        .hasMessage("backends[0].delivery: a block with write: only counts; how lines are delivered is its write's"
            + " to say: expected delivery in the write's block.");
    assertThatThrownBy(() -> parse("writes:\n  - {name: app, kind: file, path: /a}\n"
        + "backends:\n  - {kind: victorialogs, url: \"http://127.0.0.1:1\"}\n"))
        .hasMessage("writes[0]: write \"app\" is named by no backend block's write:; expected at least one block"
            + " that counts where its lines arrive (write: app).");
    assertThatThrownBy(() -> parse("writes:\n  - {name: app, kind: file, path: /a}\n"
        + "backends:\n  - {kind: loki, url: \"http://127.0.0.1:1\", write: app}\n"))
        .hasMessageContaining("backends[0].write: backend loki cannot count behind a write: a loki block behind a"
            + " write selects the agent's streams by its labels, and has none");
    assertThatThrownBy(() -> parse("writes:\n  - {name: app, kind: file, path: /a}\n"
        + "backends:\n  - {kind: kafka, bootstrap: x, topic: t, write: app}\n"))
        .hasMessageContaining("cannot count lines by the sequence id in their bodies");
    assertThatThrownBy(() -> parse("backends:\n  - {kind: victorialogs, url: \"http://127.0.0.1:1\", lag: 1m}\n"))
        .hasMessageContaining("backends[0].lag: only a block with write:");
    assertThatThrownBy(() -> parse("writes:\n  - {name: victorialogs, kind: file, path: /a}\n"
        + "backends:\n  - {kind: victorialogs, url: \"http://127.0.0.1:1\", write: victorialogs}\n"))
        .hasMessageContaining("backend name \"victorialogs\" is the name of write writes[0]");
    assertThatThrownBy(() -> parse("writes:\n  - {name: app, kind: file, path: /a, rotate: {size: 10 parsecs}}\n"
        + "backends:\n  - {kind: victorialogs, url: \"http://127.0.0.1:1\", write: app}\n"))
        .hasMessageContaining("writes[0].rotate.size").hasMessageContaining("a size in bytes such as 65536, 64KB or 10MB");
    assertThatThrownBy(() -> parse("writes:\n  - {name: app, kind: file}\n"
        + "backends:\n  - {kind: victorialogs, url: \"http://127.0.0.1:1\", write: app}\n"))
        .hasMessageContaining("writes[0].path");
  }
}
