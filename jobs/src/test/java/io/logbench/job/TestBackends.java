package io.logbench.job;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchSender;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Backends for job tests: one that takes everything and records each line it got, one that
 * answers every request with a status, and a sink that keeps outcomes; all record into static
 * maps keyed by a test id (operators are copies in other threads).
 */
final class TestBackends {

  /** Per test id and backend: how often each sequence id arrived. */
  static final Map<String, Map<Long, Integer>> RECEIVED = new ConcurrentHashMap<>();
  /** Per test id and backend: requests made. */
  static final Map<String, AtomicLong> REQUESTS = new ConcurrentHashMap<>();
  /** Per test id and backend: senders opened (one per task start, restarts included). */
  static final Map<String, AtomicLong> OPENS = new ConcurrentHashMap<>();
  /** Per test id and backend: the outcomes emitted. */
  static final Map<String, Queue<BatchOutcome>> OUTCOMES = new ConcurrentHashMap<>();

  private TestBackends() {}

  static String key(String testId, String backend) {
    return testId + "/" + backend;
  }

  static Map<Long, Integer> received(String testId, String backend) {
    return RECEIVED.computeIfAbsent(key(testId, backend), k -> new ConcurrentHashMap<>());
  }

  static AtomicLong requests(String testId, String backend) {
    return REQUESTS.computeIfAbsent(key(testId, backend), k -> new AtomicLong());
  }

  static AtomicLong opens(String testId, String backend) {
    return OPENS.computeIfAbsent(key(testId, backend), k -> new AtomicLong());
  }

  static Queue<BatchOutcome> outcomes(String testId, String backend) {
    return OUTCOMES.computeIfAbsent(key(testId, backend), k -> new ConcurrentLinkedQueue<>());
  }

  /** Takes every batch and records its lines. */
  record Counting(String name, String testId) implements BackendSpec {
    @Override
    public String kind() {
      return "test-counting";
    }

    @Override
    public BatchSender open(RunContext run) {
      opens(testId, name).incrementAndGet();
      Map<Long, Integer> got = received(testId, name);
      AtomicLong requests = requests(testId, name);
      return new BatchSender() {
        @Override
        public CompletableFuture<SendResult> send(LineBatch batch) {
          requests.incrementAndGet();
          for (int k = 0; k < batch.count(); k++) {
            got.merge(batch.seq(k), 1, Integer::sum);
          }
          return CompletableFuture.completedFuture(SendResult.accepted(batch.count(), 204));
        }

        @Override
        public void close() {}
      };
    }
  }

  /** Answers every request with {@code status} (retryable), storing nothing. */
  record Failing(String name, String testId, int status) implements BackendSpec {
    @Override
    public String kind() {
      return "test-failing";
    }

    @Override
    public BatchSender open(RunContext run) {
      AtomicLong requests = requests(testId, name);
      return new BatchSender() {
        @Override
        public CompletableFuture<SendResult> send(LineBatch batch) {
          requests.incrementAndGet();
          return CompletableFuture.completedFuture(
              SendResult.retryable(batch.count(), status, "HTTP " + status + " from the test backend"));
        }

        @Override
        public void close() {}
      };
    }
  }

  /**
   * Breaks its contract (a failed future, as a bug would) on requests {@code failFrom} to {@code
   * failFrom + failures - 1}, counted over all its tasks, failing the task; accepts the others.
   */
  record Crashing(String name, String testId, int failFrom, int failures) implements BackendSpec {
    @Override
    public String kind() {
      return "test-crashing";
    }

    @Override
    public BatchSender open(RunContext run) {
      opens(testId, name).incrementAndGet();
      AtomicLong requests = requests(testId, name);
      Map<Long, Integer> got = received(testId, name);
      return new BatchSender() {
        @Override
        public CompletableFuture<SendResult> send(LineBatch batch) {
          long n = requests.incrementAndGet();
          if (n >= failFrom && n < failFrom + failures) {
            return CompletableFuture.failedFuture(new IllegalStateException("crash " + n));
          }
          for (int k = 0; k < batch.count(); k++) {
            got.merge(batch.seq(k), 1, Integer::sum);
          }
          return CompletableFuture.completedFuture(SendResult.accepted(batch.count(), 204));
        }

        @Override
        public void close() {}
      };
    }
  }

  /** Keeps every outcome it gets under the test id and the outcome's backend. */
  record OutcomeSink(String testId) implements Sink<BatchOutcome> {
    @Override
    public SinkWriter<BatchOutcome> createWriter(WriterInitContext context) {
      return new SinkWriter<>() {
        @Override
        public void write(BatchOutcome o, Context ctx) {
          outcomes(testId, o.backend()).add(o);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
      };
    }
  }
}
