package io.logbench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Real signals raised in this JVM while {@link StopSignals} is installed: the first asks for a
 * clean stop and sets the exit code (130 for SIGINT), a second stops at once, and closing puts the
 * JVM's handlers back.
 */
class StopSignalsTest {

  @Test
  void sigintAsksForACleanStopThenAtOnceAndExits130() throws Exception {
    List<Boolean> calls = new CopyOnWriteArrayList<>();
    CompletableFuture<String> clean = new CompletableFuture<>();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Signal sigint = new Signal("INT");
    var before = Signal.handle(sigint, s -> { });
    Signal.handle(sigint, before);
    // a JVM started in the background by a non-interactive shell ignores SIGINT, as the shell asks,
    // and the JVM then installs no handler for it (SIGTERM is never ignored so)
    assumeTrue(before != SignalHandler.SIG_IGN, "SIGINT is ignored in this JVM (started in the background)");
    try (StopSignals signals = new StopSignals("generate", new PrintStream(err, true, StandardCharsets.UTF_8),
        cancel -> {
          calls.add(cancel);
          return cancel ? CompletableFuture.completedFuture("cancelled") : clean;
        }, Duration.ofMinutes(1))) {
      Signal.raise(sigint);
      await(() -> calls.size() == 1);
      assertThat(calls).containsExactly(false);
      assertThat(signals.received()).isEqualTo("SIGINT");
      assertThat(signals.exitCode()).isEqualTo(130);

      Signal.raise(new Signal("TERM")); // a second signal, of either kind: at once
      await(() -> calls.size() == 2);
      assertThat(calls).containsExactly(false, true);
      assertThat(signals.exitCode()).as("the first signal decides the exit code").isEqualTo(130);
    }
    clean.complete("stopped");
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("generate: SIGINT: stopping cleanly")
        .contains("generate: SIGTERM again: stopping at once");
    // closed: the handler in force is the JVM's own again (the JDK wraps it anew on each call)
    var now = Signal.handle(sigint, before);
    assertThat(now.getClass()).isEqualTo(before.getClass());
  }

  @Test
  void aCleanStopThatDoesNotEndInItsGraceStopsAtOnce() throws Exception {
    List<Boolean> calls = new CopyOnWriteArrayList<>();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (StopSignals signals = new StopSignals("generate", new PrintStream(err, true, StandardCharsets.UTF_8),
        cancel -> {
          calls.add(cancel);
          return cancel ? CompletableFuture.completedFuture("cancelled") : new CompletableFuture<>();
        }, Duration.ofMillis(300))) {
      Signal.raise(new Signal("TERM"));
      await(() -> calls.contains(true));
      assertThat(signals.exitCode()).isEqualTo(143);
    }
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("generate: the clean stop did not end within 300ms (timed out); stopping at once.");
  }

  private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("the condition within 10 s").isLessThan(deadline);
      Thread.sleep(5); // polls the condition
    }
  }
}
