package io.logbench.sink.discard;

import io.logbench.config.ConfigNode;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchSender;
import io.logbench.sink.CommonSettings;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code discard} backend: accepts every batch at once without I/O, to measure what the
 * generator and the delivery core cost on their own. It has no keys of its own and nothing to
 * count back.
 */
public record DiscardBackend(String name) implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "discard";

  public static final BackendType TYPE = BackendType.of(KIND, List.of(), DiscardBackend::parse);

  static DiscardBackend parse(ConfigNode block, CommonSettings common) {
    return new DiscardBackend(common.name());
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public BatchSender open(RunContext run) {
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
