package io.logbench.sink;

import io.logbench.dataset.LineBatch;
import java.util.concurrent.CompletableFuture;

/**
 * Sends batches to one backend, asynchronously. A backend's answer, whatever it is (2xx, 4xx,
 * 429, 5xx, garbage, an I/O error, no answer within the timeout), completes the future with a
 * classified {@link SendResult}; the future completes exceptionally only for a bug. Retrying is
 * the caller's business (the delivery mode), not the sender's.
 *
 * <p>Request bodies are built from the batch's pre-serialized line bytes. Implementations are
 * used from one task thread; their callbacks must not touch task state.
 */
public interface BatchSender extends AutoCloseable {

  /** Sends {@code batch} (which the caller does not change until the future completes). */
  CompletableFuture<SendResult> send(LineBatch batch);

  @Override
  void close();
}
