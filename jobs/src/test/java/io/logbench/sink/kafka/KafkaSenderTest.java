package io.logbench.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.logbench.dataset.LineBatch;
import io.logbench.sink.SendResult;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * How {@link KafkaSender} classifies the answers of a batch's records, on Kafka's own {@link
 * MockProducer} (answers are given one record at a time, in order).
 */
class KafkaSenderTest {

  private final MockProducer<byte[], byte[]> producer =
      new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
  private final KafkaSender sender = new KafkaSender(producer, "t", KafkaTestData.CATALOG, null);

  @Test
  void everyRecordAcknowledgedIsAccepted() throws Exception {
    LineBatch batch = KafkaTestData.batch(0, 0, 4);
    CompletableFuture<SendResult> f = sender.send(batch);
    for (int k = 0; k < 4; k++) {
      assertThat(f).as("before answer %d", k).isNotDone();
      producer.completeNext();
    }
    SendResult r = f.get();
    assertThat(r.kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    assertThat(r.accepted()).isEqualTo(4);
    assertThat(r.status()).isZero();

    ProducerRecord<byte[], byte[]> first = producer.history().get(1);
    assertThat(first.topic()).isEqualTo("t");
    assertThat(first.timestamp()).isEqualTo(KafkaTestData.millis(1));
    assertThat(new String(first.key(), StandardCharsets.UTF_8)).isEqualTo("{app=\"logbench\",stream=\"s1\"}");
    assertThat(first.partition()).isNull();
  }

  @Test
  void everyRecordOfARunCarriesItsRunIdHeaderAndWithoutOneNone() throws Exception {
    KafkaSender stamped = new KafkaSender(producer, "t", KafkaTestData.CATALOG, "run-a");
    CompletableFuture<SendResult> f = stamped.send(KafkaTestData.batch(0, 0, 3));
    while (producer.completeNext()) {
      // answer every record
    }
    assertThat(f.get().kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    CompletableFuture<SendResult> g = sender.send(KafkaTestData.batch(1, 3, 1));
    producer.completeNext();
    assertThat(g.get().kind()).isEqualTo(SendResult.Kind.ACCEPTED);
    assertThat(producer.history()).hasSize(4);
    for (ProducerRecord<byte[], byte[]> r : producer.history().subList(0, 3)) {
      assertThat(r.headers().toArray()).hasSize(1);
      assertThat(r.headers().lastHeader("logbench-run").value()).isEqualTo("run-a".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(producer.history().get(3).headers().toArray()).isEmpty();
  }

  @Test
  void retriableErrorsAndTimeoutsPutLinesInTheRetrySet() throws Exception {
    CompletableFuture<SendResult> f = sender.send(KafkaTestData.batch(0, 0, 3));
    producer.errorNext(new NotLeaderOrFollowerException("moved"));
    producer.completeNext();
    producer.errorNext(new TimeoutException("Expiring 1 record(s)"));
    SendResult r = f.get();
    assertThat(r.kind()).isEqualTo(SendResult.Kind.PARTIAL);
    assertThat(r.accepted()).isEqualTo(1);
    assertThat(r.retry()).isEqualTo(bits(0, 2));
    assertThat(r.rejections()).isEmpty();
    assertThat(r.detail()).isEqualTo("NotLeaderOrFollowerException: moved");
  }

  @Test
  void allRetriableIsRetryable() throws Exception {
    CompletableFuture<SendResult> f = sender.send(KafkaTestData.batch(0, 0, 2));
    producer.errorNext(new TimeoutException("t"));
    producer.errorNext(new TimeoutException("t"));
    SendResult r = f.get();
    assertThat(r.kind()).isEqualTo(SendResult.Kind.RETRYABLE);
    assertThat(r.retry()).isEqualTo(bits(0, 1));
  }

  @Test
  void otherErrorsRejectLinesByExceptionClass() throws Exception {
    CompletableFuture<SendResult> f = sender.send(KafkaTestData.batch(0, 0, 3));
    producer.completeNext();
    producer.errorNext(new RecordTooLargeException("too big"));
    producer.errorNext(new RecordTooLargeException("too big"));
    SendResult r = f.get();
    assertThat(r.kind()).isEqualTo(SendResult.Kind.PARTIAL);
    assertThat(r.accepted()).isEqualTo(1);
    assertThat(r.rejectedCount()).isEqualTo(2);
    assertThat(r.rejections()).singleElement().satisfies(rej -> {
      assertThat(rej.reason()).isEqualTo("RecordTooLargeException");
      assertThat(rej.lines()).isEqualTo(bits(1, 2));
    });
    assertThat(r.retry().isEmpty()).isTrue();
  }

  @Test
  void allRejectedIsFatal() throws Exception {
    CompletableFuture<SendResult> f = sender.send(KafkaTestData.batch(0, 0, 1));
    producer.errorNext(new RecordTooLargeException("too big"));
    assertThat(f.get().kind()).isEqualTo(SendResult.Kind.FATAL);
  }

  @Test
  void aClosedProducerAnswersEveryLineInsteadOfThrowing() throws Exception {
    producer.close();
    SendResult r = sender.send(KafkaTestData.batch(0, 0, 2)).get();
    assertThat(r.kind()).isEqualTo(SendResult.Kind.FATAL);
    assertThat(r.rejectedCount()).isEqualTo(2);
    assertThat(r.rejections().get(0).reason()).isEqualTo("IllegalStateException");
  }

  @Test
  void anEmptyBatchIsAcceptedAtOnce() throws Exception {
    LineBatch empty = new LineBatch();
    empty.reset(5, 500);
    assertThat(sender.send(empty).get().kind()).isEqualTo(SendResult.Kind.ACCEPTED);
  }

  private static BitSet bits(int... lines) {
    BitSet b = new BitSet();
    for (int k : lines) {
      b.set(k);
    }
    return b;
  }
}
