package io.logbench.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.logbench.cli.Printed;
import io.logbench.report.CsvTable;
import io.logbench.sink.loki.LokiServer;
import io.logbench.sink.victorialogs.VictoriaLogsServer;
import io.logbench.testing.FluentBit;
import io.logbench.testing.LoopbackMiniCluster;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The syslog and OTLP write kinds through the real Fluent Bit's {@code syslog} input (RFC 5424,
 * TCP with octet counting and UDP, its own {@code syslog-rfc5424} parser) and {@code opentelemetry}
 * input, each input shipped to the real VictoriaLogs ({@code http} output, a tenant per input) and
 * the real Loki ({@code loki} output, a {@code job} label per input); logbench's HEC sender as a
 * write into its {@code splunk} input, shipped to VictoriaLogs; and OTLP direct to Loki's
 * {@code /otlp/v1/logs} and VictoriaLogs' {@code /insert/opentelemetry/v1/logs} ({@code format:
 * otlp}): one bounded run (20 s at 20 lines/s, 5 s windows) writes each write once, and every
 * window of all eight count blocks is OK. About 40 s besides the servers' start.
 */
class AgentInputsITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(2);

  @TempDir static Path dir;
  private static FluentBit fb;

  @AfterAll
  static void stop() {
    if (fb != null) {
      fb.close();
    }
  }

  @Test
  void syslogAndOtlpThroughFluentBitAndOtlpDirectAreCountedWindowByWindow() throws Exception {
    LokiServer loki = LokiServer.shared();
    VictoriaLogsServer vl = VictoriaLogsServer.shared();
    String tenant = loki.tenant("agent-inputs");
    String direct = loki.tenant("otlp-direct");
    URI vlUri = URI.create(vl.url());
    URI lokiUri = URI.create(loki.url());
    int tcp = FluentBit.freePort();
    int udp = FluentBit.freePort();
    int otlp = FluentBit.freePort();
    int hec = FluentBit.freePort();
    String hecAccount = VictoriaLogsServer.tenant();
    Path token = dir.resolve("hec-token");
    Files.writeString(token, "pipeline-hec-token\n");
    List<String> tags = List.of("stcp", "sudp", "otel");
    List<String> accounts = List.of(VictoriaLogsServer.tenant(), VictoriaLogsServer.tenant(),
        VictoriaLogsServer.tenant());
    List<String> outputs = new ArrayList<>();
    for (int i = 0; i < tags.size(); i++) {
      outputs.add(String.join("\n",
          "    - name: loki",
          "      match: " + tags.get(i),
          "      host: 127.0.0.1",
          "      port: " + lokiUri.getPort(),
          "      tenant_id: " + tenant,
          "      labels: job=" + tags.get(i),
          "      line_format: json",
          "    - name: http",
          "      match: " + tags.get(i),
          "      host: 127.0.0.1",
          "      port: " + vlUri.getPort(),
          // syslog's parser puts the line in message; the opentelemetry input puts a string body in log
          "      uri: /insert/jsonline?_msg_field=" + (tags.get(i).equals("otel") ? "log" : "message")
              + "&_time_field=date",
          "      format: json_lines",
          "      json_date_key: date",
          "      json_date_format: iso8601",
          "      header: AccountID " + accounts.get(i)));
    }
    fb = FluentBit.start("inputs", String.join("\n",
        // Fluent Bit's own syslog-rfc5424 parser (its parsers.conf)
        "  - name: syslog-rfc5424",
        "    format: regex",
        "    regex: '^\\<(?<pri>[0-9]{1,5})\\>1 (?<time>[^ ]+) (?<host>[^ ]+) (?<ident>[^ ]+) (?<pid>[-0-9]+)"
            + " (?<msgid>[^ ]+) (?<extradata>(\\[(.*?)\\]|-)) (?<message>.+)$'",
        "    time_key: time",
        "    time_format: '%Y-%m-%dT%H:%M:%S.%L%z'",
        "    time_keep: on"), String.join("\n",
        "  inputs:",
        "    - name: syslog",
        "      tag: stcp",
        "      mode: tcp",
        "      listen: 127.0.0.1",
        "      port: " + tcp,
        "      format: octet_counting",
        "      parser: syslog-rfc5424",
        "    - name: syslog",
        "      tag: sudp",
        "      mode: udp",
        "      listen: 127.0.0.1",
        "      port: " + udp,
        "      parser: syslog-rfc5424",
        "    - name: opentelemetry",
        "      tag: otel",
        "      tag_from_uri: false",
        "      listen: 127.0.0.1",
        "      port: " + otlp,
        "    - name: splunk",
        "      tag: hec",
        "      listen: 127.0.0.1",
        "      port: " + hec,
        "      splunk_token: pipeline-hec-token",
        "  outputs:",
        String.join("\n", outputs),
        // the splunk input keeps each event's line in event
        "    - name: http",
        "      match: hec",
        "      host: 127.0.0.1",
        "      port: " + vlUri.getPort(),
        "      uri: /insert/jsonline?_msg_field=event&_time_field=date",
        "      format: json_lines",
        "      json_date_key: date",
        "      json_date_format: iso8601",
        "      header: AccountID " + hecAccount));
    fb.awaitListening(tcp);
    fb.awaitListening(otlp);
    fb.awaitListening(hec);
    Path runDir = dir.resolve("run");
    Path config = dir.resolve("inputs.yaml");
    String lokiBlock = "{kind: loki, url: '" + loki.url() + "', tenant: " + tenant;
    String vlBlock = "{kind: victorialogs, url: '" + vl.url() + "'";
    Files.writeString(config, String.join("\n",
        "name: agent-inputs",
        "dataset: {kind: app-json, seed: 5, streams: 2}",
        "schedule: {kind: constant, rate: 20, duration: 20s}",
        "timestamps: now",
        "batch: {lines: 20}",
        "window: 5s",
        "zone: UTC",
        "parallelism: 1",
        "run: {dir: '" + runDir + "'}",
        "visibility: {sample: 2, poll: 200ms, timeout: 30s}",
        "writes:",
        "  - {name: syslog-tcp, kind: syslog, address: '127.0.0.1:" + tcp + "'}",
        "  - {name: syslog-udp, kind: syslog, address: '127.0.0.1:" + udp + "', transport: udp}",
        "  - {name: otlp, kind: otlp, url: 'http://127.0.0.1:" + otlp + "'}",
        "  - {name: hec, kind: splunk, url: 'http://127.0.0.1:" + hec + "', token_file: '" + token + "', ack: false}",
        "backends:",
        "  - " + lokiBlock + ", name: loki-syslog-tcp, labels: {job: stcp}, write: syslog-tcp}",
        "  - " + vlBlock + ", name: vl-syslog-tcp, account_id: " + accounts.get(0) + ", write: syslog-tcp}",
        "  - " + lokiBlock + ", name: loki-syslog-udp, labels: {job: sudp}, write: syslog-udp}",
        "  - " + vlBlock + ", name: vl-syslog-udp, account_id: " + accounts.get(1) + ", write: syslog-udp}",
        "  - " + lokiBlock + ", name: loki-otlp, labels: {job: otel}, write: otlp}",
        "  - " + vlBlock + ", name: vl-otlp, account_id: " + accounts.get(2) + ", write: otlp}",
        "  - " + vlBlock + ", name: vl-hec, account_id: " + hecAccount + ", write: hec}",
        "  - {kind: loki, name: loki-direct, url: '" + loki.url() + "', tenant: " + direct + ", format: otlp}",
        "  - " + vlBlock + ", name: vl-direct, account_id: " + VictoriaLogsServer.tenant() + ", format: otlp}",
        ""));
    Printed g = Printed.run("generate", config.toString(), "--quiet");
    assertThat(g.code()).as("%s%n%s", g.out(), g.err()).isZero();
    // write-to-visible through the agent: every sampled batch became countable at its count block
    CsvTable ingest = CsvTable.read(runDir.resolve("ingest.csv"));
    assertThat(ingest.rows()).hasSize(9);
    for (List<String> row : ingest.rows()) {
      assertThat(ingest.get(row, "sampled")).as("%s", row).isEqualTo("10");
      assertThat(ingest.get(row, "visible")).as("%s", row).isEqualTo("10");
      assertThat(ingest.get(row, "visible_from_ack_p50_ms")).as("%s", row).isNotEmpty();
    }
    long lines = 20L * 20;
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!shipped(fb.metrics(), lines)) {
      assertThat(System.nanoTime()).as("Fluent Bit shipping %d lines per output: %s%n%s", lines, fb.metrics(),
          fb.log()).isLessThan(deadline);
      Thread.sleep(100); // polling interval
    }
    Printed v = Printed.run("verify", config.toString(), "--max-wait", "15s", "--recheck", "1s", "--quiet");
    assertThat(v.code()).as("%s%n%s%n%s", v.out(), v.err(), fb.log()).isZero();
    CsvTable verdicts = CsvTable.read(runDir.resolve("verdicts.csv"));
    List<String> names = List.of("loki-syslog-tcp", "vl-syslog-tcp", "loki-syslog-udp", "vl-syslog-udp", "loki-otlp",
        "vl-otlp", "vl-hec", "loki-direct", "vl-direct");
    for (String name : names) {
      List<List<String>> rows = verdicts.rows().stream().filter(r -> verdicts.get(r, "backend").equals(name)).toList();
      assertThat(rows).as(name).hasSizeGreaterThanOrEqualTo(4);
      long observed = 0;
      for (List<String> r : rows) {
        assertThat(verdicts.get(r, "status")).as("%s %s", name, r).isEqualTo("OK");
        observed += Long.parseLong(verdicts.get(r, "observed"));
      }
      assertThat(observed).as(name).isEqualTo(lines);
    }
  }

  /** Whether each of Fluent Bit's seven outputs has sent {@code lines} records. */
  private static boolean shipped(JsonNode metrics, long lines) {
    int done = 0;
    for (JsonNode o : metrics.path("output")) {
      done += o.path("proc_records").asLong() >= lines ? 1 : 0;
    }
    return done == 7;
  }
}
