package io.logbench.sink.http;

import io.logbench.http.HttpTransport;
import io.logbench.sink.SendResult;
import java.util.concurrent.CompletableFuture;

/**
 * Turns a transport's answer into a send's future: the backend's classification of the status and
 * body, or for no answer the sender's failure result (by default {@link HttpAnswers#failure}).
 * Runs on the transport's I/O thread; a classification that throws is a bug and fails the future.
 */
public final class FutureAnswer implements HttpTransport.Answer {

  /** A backend's reading of an HTTP answer. */
  @FunctionalInterface
  public interface Classifier {
    SendResult classify(int status, byte[] body);
  }

  /** A sender's result for a request that got no answer. */
  @FunctionalInterface
  public interface Failure {
    SendResult failed(Throwable error);
  }

  private final CompletableFuture<SendResult> future = new CompletableFuture<>();
  private final Classifier classifier;
  private final Failure failure;

  public FutureAnswer(Classifier classifier, Failure failure) {
    this.classifier = classifier;
    this.failure = failure;
  }

  /** Answers of a send of {@code lines} lines, failures classified by {@link HttpAnswers#failure}. */
  public FutureAnswer(int lines, Classifier classifier) {
    this(classifier, error -> HttpAnswers.failure(lines, error));
  }

  public CompletableFuture<SendResult> future() {
    return future;
  }

  @Override
  public void answered(int status, byte[] body) {
    try {
      future.complete(classifier.classify(status, body));
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
  }

  @Override
  public void failed(Throwable error) {
    try {
      future.complete(failure.failed(error));
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
  }
}
