package io.logbench.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.LineBatchPool;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchSender;
import io.logbench.sink.DeliveryContext;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.WindowGrid;
import io.logbench.sink.discard.DiscardBackend;
import io.logbench.source.LineBatchSerializer;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The delivery operator as Flink runs it (the test's thread is the task's): batches every line of
 * which the backend took at once go back to the task thread's {@link LineBatchPool} when their
 * outcomes leave the operator, and not while a checkpoint whose snapshot holds them is open;
 * batches the backend refused stay out of it.
 */
class DeliveryFunctionRecyclingTest {

  @AfterEach
  void emptyThisThreadsPool() {
    while (LineBatchPool.take() != null) {
      // dropped
    }
  }

  private static DeliveryContext context() {
    return new DeliveryContext(DeliverySettings.defaults(), RunContext.of(new TwoStreams()),
        new WindowGrid(0, 60_000), null, ZoneOffset.UTC, (spec, ctx, in) -> {
          throw new IllegalStateException("not wired here");
        });
  }

  private static LineBatch batch(long id) {
    LineBatch b = new LineBatch();
    b.reset(id, id * 10);
    for (int k = 0; k < 10; k++) {
      byte[] line = ("line " + (id * 10 + k)).getBytes(StandardCharsets.UTF_8);
      b.append(line, 0, line.length, 1_000 + k, k % 2);
    }
    b.setScheduledNanos(1);
    return b;
  }

  private static OneInputStreamOperatorTestHarness<LineBatch, BatchOutcome> harness(BackendSpec backend) throws Exception {
    DeliveryFunction function = new DeliveryFunction(backend, context());
    OneInputStreamOperatorTestHarness<LineBatch, BatchOutcome> h =
        new OneInputStreamOperatorTestHarness<>(function.operatorFactory(), LineBatchSerializer.INSTANCE);
    h.open();
    return h;
  }

  /** Runs the task's mails (the async operator emits its outcomes in them) until none is left. */
  private static void runMails(OneInputStreamOperatorTestHarness<?, ?> h) throws Exception {
    for (Optional<Mail> m = h.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY); m.isPresent();
        m = h.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY)) {
      m.get().run();
    }
  }

  @Test
  void batchesTakenAtOnceGoBackOnceTheirOutcomesAreEmittedAndNoCheckpointHoldsThem() throws Exception {
    try (var h = harness(new DiscardBackend("d"))) {
      LineBatch first = batch(0);
      h.processElement(new StreamRecord<>(first));
      runMails(h);
      assertThat(h.extractOutputValues()).extracting(BatchOutcome::batchId).containsExactly(0L);
      assertThat(LineBatchPool.take()).isSameAs(first);

      LineBatch second = batch(1);
      h.processElement(new StreamRecord<>(second));
      h.snapshot(1, 1); // before the outcome is emitted: the snapshot may still write the batch
      runMails(h);
      assertThat(h.extractOutputValues()).extracting(BatchOutcome::batchId).containsExactly(0L, 1L);
      assertThat(LineBatchPool.size()).as("held while checkpoint 1 is open").isZero();
      h.notifyOfCompletedCheckpoint(1);
      assertThat(LineBatchPool.take()).isSameAs(second);
    }
  }

  @Test
  void batchesTheBackendRefusedAreNotGivenBack() throws Exception {
    try (var h = harness(new Refusing("r"))) {
      h.processElement(new StreamRecord<>(batch(0)));
      runMails(h);
      assertThat(h.extractOutputValues()).extracting(BatchOutcome::status).containsExactly(BatchOutcome.Status.FAILED);
      assertThat(LineBatchPool.size()).isZero();
    }
  }

  /** Two streams, one label. */
  private static final class TwoStreams implements io.logbench.dataset.StreamCatalog {
    @Override
    public int size() {
      return 2;
    }

    @Override
    public Map<String, String> labels(int id) {
      return Map.of("s", "s" + id);
    }

    @Override
    public List<String> labelNames() {
      return List.of("s");
    }
  }

  /** A backend that refuses every batch for good (a 400). */
  private record Refusing(String name) implements BackendSpec {
    @Override
    public String kind() {
      return "refusing";
    }

    @Override
    public BatchSender open(RunContext run) {
      return new BatchSender() {
        @Override
        public CompletableFuture<SendResult> send(LineBatch batch) {
          return CompletableFuture.completedFuture(SendResult.fatal(batch.count(), 400, "400", "bad request"));
        }

        @Override
        public void close() {}
      };
    }
  }
}
