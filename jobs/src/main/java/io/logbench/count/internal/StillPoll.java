package io.logbench.count.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.function.Function;

/**
 * Reads a backend's state every {@code poll} until it has stood still for {@code still}, or the
 * timeout passes: the wait after a flush before a stored size is read (Loki's ingesters, an
 * Elasticsearch index's merges). A reading whose state is null is busy (a flush queued, a merge
 * running) and never counts as still. Stillness is measured from the answer that first showed the
 * state to the moment the last read was asked, so the backend had answered it for at least {@code
 * still} before that read reached it.
 */
public final class StillPoll {

  /** A read of the backend. */
  @FunctionalInterface
  public interface Read<T> {
    T get() throws IOException;
  }

  /**
   * How the wait ended.
   *
   * @param still whether the state stood still for the whole {@code still} duration before the timeout
   * @param last the last reading
   */
  public record Result<T>(boolean still, T last) {}

  private StillPoll() {}

  /**
   * Polls {@code read} until {@code state} of its readings stays the same, and non-null, for
   * {@code still}; at most {@code timeout}.
   *
   * @param what the wait, for the interrupt's message ("Loki's flush")
   */
  public static <T> Result<T> await(Read<T> read, Function<T, String> state, Duration still, Duration poll,
      Duration timeout, String what) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String standing = null;
    long since = 0;
    while (true) {
      long asked = System.nanoTime();
      T r = read.get();
      long answered = System.nanoTime();
      String s = state.apply(r);
      if (s == null || !s.equals(standing)) {
        standing = s;
        since = answered;
      } else if (asked - since >= still.toNanos()) {
        return new Result<>(true, r);
      }
      if (answered > deadline) {
        return new Result<>(false, r);
      }
      try {
        Thread.sleep(poll.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("Interrupted while waiting for " + what + ".");
      }
    }
  }
}
