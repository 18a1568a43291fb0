package io.logbench.sink.kafka;

import io.logbench.count.CountReader;
import io.logbench.count.internal.WindowRange;
import io.logbench.sink.WindowGrid;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.KafkaException;

/**
 * The {@link CountReader} of a Kafka topic, through {@link KafkaCounter}: each call reads the
 * topic's committed records up to the end offsets found when it starts and files them by record
 * timestamp (the line's time), only the run's records when it has an id ({@link KafkaCounter});
 * {@link #sequenceIds} decodes the Avro values. A broker that does
 * not answer within the deadline, or a topic that does not exist, is an {@link IOException}.
 *
 * <p>Each call is one pass over the whole topic, so a verifier should ask for many windows at
 * once; the backend's {@code query_timeout} is the deadline of a pass.
 */
public final class KafkaCountReader implements CountReader {

  private final KafkaCounter counter;
  private final String topic;
  private final AtomicLong passes = new AtomicLong();
  private final AtomicLong nanos = new AtomicLong();

  public KafkaCountReader(KafkaCounter counter, String topic) {
    this.counter = counter;
    this.topic = topic;
  }

  /**
   * A reader of the records of run {@code runId} (every record for null) in {@code backend}'s
   * topic, whose passes fail after {@code deadline}.
   */
  public static KafkaCountReader of(KafkaBackend backend, Duration deadline, String runId) {
    return new KafkaCountReader(KafkaCounter.of(backend, deadline, runId), backend.topic());
  }

  @Override
  public long[] counts(long fromMillis, long toMillis, long windowMillis) throws IOException {
    WindowRange range = WindowRange.of(fromMillis, toMillis, windowMillis);
    long[] counts = new long[range.n()];
    if (range.n() == 0) {
      return counts;
    }
    SortedMap<Long, Long> perWindow = pass(() -> counter.countPerWindow(new WindowGrid(fromMillis, windowMillis)));
    for (Map.Entry<Long, Long> e : perWindow.subMap(fromMillis, toMillis).entrySet()) {
      counts[range.indexOf(e.getKey())] = e.getValue();
    }
    return counts;
  }

  /** Every read passes over the whole {@code scan} source. */
  @Override
  public boolean scans() {
    return true;
  }

  @Override
  public List<Long> sequenceIds(long fromMillis, long toMillis, int limit) throws IOException {
    List<Long> seqs = new ArrayList<>();
    if (limit <= 0 || toMillis <= fromMillis) {
      return seqs;
    }
    // one window spanning the whole range: every record in it files under fromMillis
    SortedMap<Long, List<Long>> found =
        pass(() -> counter.seqsPerWindow(new WindowGrid(fromMillis, toMillis - fromMillis), fromMillis, toMillis));
    for (List<Long> ids : found.values()) {
      for (Long id : ids) {
        if (seqs.size() == limit) {
          return seqs;
        }
        seqs.add(id);
      }
    }
    return seqs;
  }

  private interface Pass<T> {
    T run();
  }

  private <T> T pass(Pass<T> pass) throws IOException {
    long t0 = System.nanoTime();
    try {
      return pass.run();
    } catch (KafkaException | IllegalStateException e) {
      throw new IOException("Counting the Kafka topic " + topic + " failed: " + e.getMessage(), e);
    } finally {
      passes.incrementAndGet();
      nanos.addAndGet(System.nanoTime() - t0);
    }
  }

  @Override
  public QueryStats stats() {
    return new QueryStats(passes.get(), nanos.get());
  }

  @Override
  public void close() {
    // KafkaCounter opens and closes a consumer per pass
  }
}
