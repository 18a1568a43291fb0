package io.logbench.delivery.internal;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A hand-written fake backend: each send takes the next scripted answer (the last one repeats)
 * and records what was sent. Answers may come at once, after a virtual delay, or never.
 */
final class ScriptedSender implements BatchSender {

  /** One scripted answer: a result made from the batch sent, and when it comes. */
  record Answer(Function<LineBatch, SendResult> result, long delayNanos, boolean hang) {}

  /** What one send carried. */
  record Sent(long batchId, List<Long> seqs, List<Long> timestamps, long atNanos) {}

  private final ManualTimer timer;
  private final Deque<Answer> script = new ArrayDeque<>();
  private Answer last;
  final List<Sent> sent = new ArrayList<>();
  final List<CompletableFuture<SendResult>> hanging = new ArrayList<>();
  boolean closed;

  ScriptedSender(ManualTimer timer) {
    this.timer = timer;
  }

  ScriptedSender then(Function<LineBatch, SendResult> result) {
    script.add(new Answer(result, 0, false));
    return this;
  }

  ScriptedSender thenAfter(long delayNanos, Function<LineBatch, SendResult> result) {
    script.add(new Answer(result, delayNanos, false));
    return this;
  }

  ScriptedSender thenHang() {
    script.add(new Answer(null, 0, true));
    return this;
  }

  static Function<LineBatch, SendResult> accept() {
    return b -> SendResult.accepted(b.count(), 204);
  }

  static Function<LineBatch, SendResult> status(int status) {
    return b -> SendResult.retryable(b.count(), status, "HTTP " + status);
  }

  static Function<LineBatch, SendResult> io() {
    return b -> SendResult.retryable(b.count(), 0, "connection refused");
  }

  static Function<LineBatch, SendResult> fatal(int status, String reason) {
    return b -> SendResult.fatal(b.count(), status, reason, "bad request");
  }

  @Override
  public CompletableFuture<SendResult> send(LineBatch batch) {
    List<Long> seqs = new ArrayList<>();
    List<Long> ts = new ArrayList<>();
    for (int k = 0; k < batch.count(); k++) {
      seqs.add(batch.seq(k));
      ts.add(batch.timestampMillis(k));
    }
    sent.add(new Sent(batch.batchId(), seqs, ts, timer.now()));
    Answer a = script.isEmpty() ? (last != null ? last : new Answer(accept(), 0, false)) : script.poll();
    last = a;
    CompletableFuture<SendResult> f = new CompletableFuture<>();
    if (a.hang()) {
      hanging.add(f);
    } else if (a.delayNanos() == 0) {
      f.complete(a.result().apply(batch));
    } else {
      SendResult r = a.result().apply(batch);
      timer.schedule(() -> f.complete(r), a.delayNanos());
    }
    return f;
  }

  @Override
  public void close() {
    closed = true;
  }
}
