package io.logbench.sink.discard;

import io.logbench.config.ConfigNode;
import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchSender;
import io.logbench.sink.Backends;
import io.logbench.sink.SendResult;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code discard} backend: accepts every batch at once without I/O, to measure what the
 * generator and the delivery core cost on their own. It has no keys of its own.
 */
public record DiscardBackend(String name) implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "discard";

  /** Reads a {@code kind: discard} block. */
  public static DiscardBackend parse(ConfigNode block) {
    block.allowOnly(Backends.keys());
    return new DiscardBackend(Backends.name(block, KIND));
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public BatchSender open(StreamCatalog streams) {
    return new BatchSender() {
      @Override
      public CompletableFuture<SendResult> send(LineBatch batch) {
        return CompletableFuture.completedFuture(SendResult.accepted(batch.count(), 0));
      }

      @Override
      public void close() {}
    };
  }
}
