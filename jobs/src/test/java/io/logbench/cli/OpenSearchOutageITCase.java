package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.ledger.LedgerEntry;
import io.logbench.ledger.LedgerFiles;
import io.logbench.sink.elasticsearch.OpenSearchTestServer;
import io.logbench.sink.internal.OutageProxy;
import io.logbench.testing.LoopbackMiniCluster;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real OpenSearch goes off the network for about 30 s in the middle of an at-least-once run
 * (a TCP proxy in front of it first swallows requests without an answer, then resets every
 * connection): every line is still delivered, generate's summary counts the resent requests by
 * cause (timeout, then io), and verify finds every window OK.
 */
class OpenSearchOutageITCase {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = LoopbackMiniCluster.extension(2);

  private static final int LINES = 3_000;
  /** Each half of the outage: no answer, then connections reset. */
  private static final Duration HALF = Duration.ofSeconds(15);

  @TempDir Path dir;

  @Test
  void anOutageOfAboutThirtySecondsIsRetriedThroughAndCountedByCause() throws Exception {
    String index = "outage-it-" + UUID.randomUUID().toString().substring(0, 8);
    OpenSearchTestServer os = OpenSearchTestServer.get();
    try (OutageProxy proxy = new OutageProxy(URI.create(os.url()).getPort())) {
      Path config = dir.resolve("run.yaml");
      Files.writeString(config, String.join("\n",
          "name: outage-it",
          "dataset: {kind: app-json, lines: " + LINES + ", streams: 3, start: \"2021-05-01T03:00:00Z\", rate: 100}",
          "schedule: {kind: constant, rate: 100}",
          "timestamps: original",
          "window: 5s",
          "zone: UTC",
          "batch: {lines: 25}",
          "parallelism: 1",
          "run: {checkpoint_interval: 1s}",
          "backends:",
          // a short answer timeout, so the blackholed requests time out; backoff capped at 2 s, so
          // the resends find the server soon after it is back
          "  - {kind: opensearch, name: opensearch, url: '" + proxy.url() + "', index: " + index + ", timeout: 2s,"
              + " retry: {initial: 100ms, max: 2s, multiplier: 2}}",
          ""));
      Path runDir = dir.resolve("run");
      AtomicReference<Printed> generated = new AtomicReference<>();
      Thread generate = new Thread(() -> generated.set(Printed.run("generate", config.toString(),
          "--run-dir", runDir.toString(), "--quiet")), "outage-it-generate");
      generate.start();

      await("the first acknowledged lines", Duration.ofMinutes(3), generate, () -> acked(runDir) > 0);
      long ackedBefore = acked(runDir);
      proxy.mode(OutageProxy.Mode.BLACKHOLE);
      long outageStart = System.nanoTime();
      await("a blackholed connection", HALF, generate, () -> proxy.refused() > 0);
      awaitTime(outageStart + HALF.toNanos());
      proxy.mode(OutageProxy.Mode.RESET);
      long resets = proxy.refused();
      await("a reset connection", HALF, generate, () -> proxy.refused() > resets);
      awaitTime(outageStart + 2 * HALF.toNanos());
      long ackedDuring = acked(runDir);
      proxy.mode(OutageProxy.Mode.UP);
      generate.join(Duration.ofMinutes(3).toMillis());
      assertThat(generate.isAlive()).as("generate ended after the outage").isFalse();

      Printed g = generated.get();
      assertThat(g.code()).as("%s%n%s", g.out(), g.err()).isZero();
      assertThat(ackedBefore).isLessThan(LINES);
      assertThat(ackedDuring).as("the outage began mid-run").isLessThan(LINES);
      // summary.csv: backend,mode,expected_lines,lines,acked,requests,...,resent_requests,resent_lines
      String row = Files.readAllLines(runDir.resolve("summary.csv")).get(1);
      assertThat(row).startsWith("opensearch,at-least-once," + LINES + "," + LINES + "," + LINES + ",");
      String[] f = row.split(",");
      assertThat(f[11]).as("resent requests by cause in %s", row).containsPattern("(^|;)io=[1-9]")
          .containsPattern("(^|;)timeout=[1-9]");
      assertThat(g.out().lines().filter(l -> l.startsWith("opensearch ")).findFirst().orElse(""))
          .as("the printed totals of %s", g.out()).contains("io=").contains("timeout=");
      List<LedgerEntry> ledger = LedgerFiles.read(runDir);
      assertThat(ledger).hasSize(6).allSatisfy(e -> assertThat(e.acked()).isEqualTo(e.expected()));

      Printed verify = Printed.run("verify", config.toString(), "--run-dir",
          runDir.toString(), "--quiet");
      assertThat(verify.code()).as("%s%n%s", verify.out(), verify.err()).isZero();
      List<String> verdicts = Files.readAllLines(runDir.resolve("verdicts.csv"));
      assertThat(verdicts.subList(1, verdicts.size())).hasSize(6).allMatch(l -> l.split(",")[3].equals("OK"));
    }
  }

  private static long acked(Path runDir) {
    try {
      return LedgerFiles.readLive(runDir.resolve("ledger").resolve("opensearch")).stream()
          .mapToLong(LedgerEntry::acked).sum();
    } catch (IOException e) {
      return 0; // being written: look again
    }
  }

  private static void await(String what, Duration timeout, Thread generate, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(generate.isAlive()).as("generate still running while waiting for " + what).isTrue();
      assertThat(System.nanoTime()).as(what + " within " + timeout).isLessThan(deadline);
      generate.join(50); // returns early if generate ends
    }
  }

  /** Waits until {@code System.nanoTime()} reaches {@code nanos}: the outage's length is the point here. */
  private static void awaitTime(long nanos) throws InterruptedException {
    long left;
    while ((left = nanos - System.nanoTime()) > 0) {
      Thread.sleep(Math.max(1, left / 1_000_000));
    }
  }
}
