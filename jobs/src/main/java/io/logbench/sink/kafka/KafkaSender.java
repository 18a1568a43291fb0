package io.logbench.sink.kafka;

import io.logbench.dataset.LineBatch;
import io.logbench.dataset.StreamCatalog;
import io.logbench.sink.BatchSender;
import io.logbench.sink.SendResult;
import io.logbench.sink.kafka.internal.LogRecordEncoder;
import io.logbench.sink.kafka.internal.StreamKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;

/**
 * Sends each line of a batch as one Kafka record: key = the stream's labels, value = Avro binary
 * {@code LogRecord}, timestamp = the line's millisecond, header {@code logbench-run} = the run's id
 * (when the run has one). The batch's future completes once every
 * record has its answer: all acknowledged is ACCEPTED; retriable errors (including timeouts) put
 * lines in the retry set; any other error rejects the line, counted by exception class name.
 *
 * <p>The producer is idempotent with {@code acks=all}, so its own retries never duplicate; a batch
 * the caller sends again after a RETRYABLE answer is a new write and can duplicate lines the broker
 * did take, which the count side shows.
 */
public final class KafkaSender implements BatchSender {

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final StreamKeys keys;
  private final LogRecordEncoder encoder;
  /** The run header of every record, or null. */
  private final List<Header> headers;

  /**
   * Uses {@code producer} (closed with this sender) to write lines of {@code streams}, each with
   * the header {@code logbench-run} = {@code runId} (none when null).
   */
  public KafkaSender(Producer<byte[], byte[]> producer, String topic, StreamCatalog streams, String runId) {
    this.producer = producer;
    this.topic = topic;
    this.keys = StreamKeys.of(streams);
    this.encoder = new LogRecordEncoder(streams);
    this.headers = KafkaBackend.runHeaders(runId);
  }

  @Override
  public CompletableFuture<SendResult> send(LineBatch batch) {
    int n = batch.count();
    BatchAnswers answers = new BatchAnswers(n);
    if (n == 0) {
      answers.complete();
      return answers.future;
    }
    for (int k = 0; k < n; k++) {
      ProducerRecord<byte[], byte[]> record =
          new ProducerRecord<>(
              topic, null, batch.timestampMillis(k), keys.key(batch.stream(k)), encoder.encode(batch, k), headers);
      int line = k;
      try {
        producer.send(record, (metadata, error) -> answers.answer(line, error));
      } catch (RuntimeException e) {
        // send() throws for what it cannot even queue (closed producer, buffer full past max.block.ms)
        answers.answer(line, e);
      }
    }
    return answers.future;
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(30));
  }

  /** Whether an error leaves the line worth sending again. */
  static boolean retriable(Exception error) {
    return error instanceof RetriableException || error instanceof TimeoutException;
  }

  /**
   * The answers of one batch's records, gathered on the producer's I/O thread; the task sees them
   * only through the future.
   */
  private static final class BatchAnswers {
    private final int lines;
    private final CompletableFuture<SendResult> future = new CompletableFuture<>();
    private final BitSet retry = new BitSet();
    private final Map<String, BitSet> rejected = new TreeMap<>();
    private String firstError = "";
    private int pending;
    private int accepted;

    BatchAnswers(int lines) {
      this.lines = lines;
      this.pending = lines;
    }

    void answer(int line, Exception error) {
      boolean done;
      synchronized (this) {
        if (error == null) {
          accepted++;
        } else {
          if (firstError.isEmpty()) {
            firstError = error.getClass().getSimpleName() + ": " + error.getMessage();
          }
          if (retriable(error)) {
            retry.set(line);
          } else {
            rejected.computeIfAbsent(error.getClass().getSimpleName(), r -> new BitSet()).set(line);
          }
        }
        done = --pending == 0;
      }
      if (done) {
        complete();
      }
    }

    synchronized void complete() {
      if (accepted == lines) {
        future.complete(SendResult.accepted(lines, 0));
        return;
      }
      List<SendResult.Rejection> rejections = new ArrayList<>();
      for (Map.Entry<String, BitSet> e : rejected.entrySet()) {
        rejections.add(new SendResult.Rejection(e.getKey(), e.getValue().cardinality(), e.getValue()));
      }
      SendResult.Kind kind;
      if (accepted > 0) {
        kind = SendResult.Kind.PARTIAL;
      } else if (retry.cardinality() == lines) {
        kind = SendResult.Kind.RETRYABLE;
      } else if (retry.isEmpty()) {
        kind = SendResult.Kind.FATAL;
      } else {
        kind = SendResult.Kind.PARTIAL;
      }
      future.complete(
          new SendResult(kind, 0, accepted, List.copyOf(rejections), retry, SendResult.bounded(firstError)));
    }
  }
}
