package io.logbench.publish;

import io.logbench.pacing.Pacer;
import io.logbench.pacing.WallClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;

/**
 * Wraps the Kafka connector's reader and lets each line out when it is due ({@link Pacing}), so a
 * replay follows its schedule as a generated run does (open model: a line is let out at its time
 * whatever happened to the lines before it).
 *
 * <p>The Kafka reader hands over lines as it fetches them, a chunk of one partition after a chunk
 * of another (each partition holds its lines in sequence order, as {@code publish} writes them).
 * They wait here in a queue per partition, and the earliest due head of all queues goes out first,
 * when due. Before a line goes out, everything the Kafka reader has is taken in, up to {@value
 * #QUEUE_LIMIT} queued lines: far more than the partitions' chunks (the replay asks for small ones,
 * {@code max.partition.fetch.bytes}), so a partition fetched a little later does not fall behind;
 * at the limit the Kafka reader is simply not asked (its fetcher then waits), which bounds memory.
 * (The connector can pause partitions, but pausing one it has just finished fails its fetcher.)
 *
 * <p>Checkpoints stay exact: the Kafka reader's offset of a partition has moved past the lines
 * still queued here, so the snapshot puts it back to the first queued line, which is read again
 * after a restore. Metrics, as a generated run's source: gauge {@code scheduleLagMillis}, counter
 * {@code linesEmitted}.
 */
final class PacedReplayReader implements SourceReader<ReplayLine, KafkaPartitionSplit> {

  /** Lines queued here at most (plus the few one call of the Kafka reader hands over). */
  static final int QUEUE_LIMIT = 20_000;

  private final SourceReader<ReplayLine, KafkaPartitionSplit> kafka;
  private final Pacing pacing;
  private final String topic;
  private final Map<Integer, Queue> queues = new HashMap<>();
  private final Map<String, KafkaPartitionSplit> assigned = new HashMap<>();
  private final Capture capture = new Capture();
  private final Counter linesEmitted;
  private final int queueLimit;
  private int queued;

  private volatile long scheduleLagMillis;
  private volatile CompletableFuture<Void> available = new CompletableFuture<>();
  private CompletableFuture<Void> watched;
  private boolean kafkaEnded;
  /** The JVM's pacer and this reader's place in it, from the first timed wait on. */
  private Pacer pacer;
  private Pacer.Waiter waiter;
  private long cachedBatch = -1;
  private long cachedDue;

  PacedReplayReader(
      SourceReader<ReplayLine, KafkaPartitionSplit> kafka, Pacing pacing, String topic, SourceReaderContext context) {
    this(kafka, pacing, topic, context, QUEUE_LIMIT);
  }

  /** With another queue limit (tests). */
  PacedReplayReader(SourceReader<ReplayLine, KafkaPartitionSplit> kafka, Pacing pacing, String topic,
      SourceReaderContext context, int queueLimit) {
    if (queueLimit < 1) {
      throw new IllegalArgumentException("A replay reader queues at least 1 line, not " + queueLimit + ".");
    }
    this.queueLimit = queueLimit;
    this.kafka = kafka;
    this.pacing = pacing;
    this.topic = topic;
    this.linesEmitted = context.metricGroup().counter("linesEmitted");
    context.metricGroup().gauge("scheduleLagMillis", (Gauge<Long>) () -> scheduleLagMillis);
  }

  @Override
  public void start() {
    kafka.start();
  }

  @Override
  public InputStatus pollNext(ReaderOutput<ReplayLine> output) throws Exception {
    // first take in what the Kafka reader has, up to the limit, so the line let out is the
    // earliest due of all lines read so far
    while (!kafkaEnded && queued < queueLimit) {
      InputStatus status = kafka.pollNext(capture);
      while (!capture.lines.isEmpty()) {
        hold(capture.lines.poll());
      }
      if (status == InputStatus.END_OF_INPUT) {
        kafkaEnded = true;
      } else if (status == InputStatus.NOTHING_AVAILABLE) {
        break;
      }
    }
    Queue next = earliest();
    if (next == null) {
      return kafkaEnded ? InputStatus.END_OF_INPUT : waitFor(-1);
    }
    long now = pacing.paced() ? WallClock.epochNanos() : 0;
    if (next.headDue > now) {
      return waitFor(next.headDue - now);
    }
    emit(next, output, now);
    return InputStatus.MORE_AVAILABLE;
  }

  /** The queue whose head is due first, or null when every queue is empty. */
  private Queue earliest() {
    Queue best = null;
    for (Queue q : queues.values()) {
      if (!q.lines.isEmpty() && (best == null || q.headDue < best.headDue)) {
        best = q;
      }
    }
    return best;
  }

  private void emit(Queue q, ReaderOutput<ReplayLine> output, long now) {
    ReplayLine line = q.lines.poll();
    queued--;
    if (!q.lines.isEmpty()) {
      q.headDue = due(q.lines.peek().seq);
    }
    output.collect(line);
    linesEmitted.inc();
    if (pacing.paced()) {
      scheduleLagMillis = Math.max(0, now - due(line.seq)) / 1_000_000L;
    }
  }

  private void hold(ReplayLine line) {
    Queue q = queues.computeIfAbsent(line.partition, Queue::new);
    if (q.lines.isEmpty()) {
      q.headDue = due(line.seq);
    }
    q.lines.add(line);
    queued++;
  }

  /** Due time of a line; lines of one batch are usually read one after another, so the last batch is kept. */
  private long due(long seq) {
    if (!pacing.paced()) {
      return 0;
    }
    long b = pacing.batchOf(seq);
    if (b != cachedBatch) {
      cachedBatch = b;
      cachedDue = pacing.batchDueNanos(b);
    }
    return cachedDue;
  }

  /**
   * Nothing to let out now: wakes up when the Kafka reader has more, or after {@code delayNanos}
   * (negative: no timer) when a queued line falls due.
   */
  private InputStatus waitFor(long delayNanos) {
    CompletableFuture<Void> future = available;
    if (future.isDone()) {
      future = new CompletableFuture<>();
      available = future;
    }
    if (!kafkaEnded && queued < queueLimit) {
      CompletableFuture<Void> more = kafka.isAvailable();
      if (more.isDone()) {
        future.complete(null);
        return InputStatus.NOTHING_AVAILABLE;
      }
      if (more != watched) {
        // one callback per future of the Kafka reader, however often this reader waits on it
        watched = more;
        // run by the thread that completes it (Kafka's fetcher), named so: waking is one complete()
        more.thenRunAsync(this::wake, Runnable::run);
      }
    }
    if (delayNanos >= 0) {
      if (pacer == null) {
        pacer = Pacer.acquire();
        waiter = pacer.add();
      }
      // pollNext reads the clock again, so a wake-up a little early only costs a retry
      pacer.wakeAt(waiter, WallClock.epochNanos() + delayNanos, future);
    }
    return InputStatus.NOTHING_AVAILABLE;
  }

  private void wake() {
    available.complete(null);
  }

  @Override
  public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
    List<KafkaPartitionSplit> kafkaState = kafka.snapshotState(checkpointId);
    Map<String, KafkaPartitionSplit> splits = new LinkedHashMap<>();
    for (KafkaPartitionSplit s : kafkaState) {
      splits.put(s.splitId(), s);
    }
    for (Queue q : queues.values()) {
      if (!q.lines.isEmpty()) {
        // also for a partition the Kafka reader has finished: its queued lines are still to go
        KafkaPartitionSplit a = assigned.get(q.splitId);
        long stop = a == null ? KafkaPartitionSplit.NO_STOPPING_OFFSET
            : a.getStoppingOffset().orElse(KafkaPartitionSplit.NO_STOPPING_OFFSET);
        splits.put(q.splitId, new KafkaPartitionSplit(q.partition, q.lines.peek().offset, stop));
      }
    }
    return new ArrayList<>(splits.values());
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void addSplits(List<KafkaPartitionSplit> splits) {
    for (KafkaPartitionSplit s : splits) {
      assigned.put(s.splitId(), s);
    }
    kafka.addSplits(splits);
    wake();
  }

  @Override
  public void notifyNoMoreSplits() {
    kafka.notifyNoMoreSplits();
    wake();
  }

  @Override
  public void handleSourceEvents(SourceEvent event) {
    kafka.handleSourceEvents(event);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    kafka.notifyCheckpointComplete(checkpointId);
  }

  @Override
  public void notifyCheckpointAborted(long checkpointId) throws Exception {
    kafka.notifyCheckpointAborted(checkpointId);
  }

  @Override
  public void close() throws Exception {
    if (pacer != null) {
      pacer.remove(waiter);
      pacer = null;
      Pacer.release();
    }
    kafka.close();
  }

  /** Lines of one partition read but not yet let out, in offset (and sequence) order. */
  private final class Queue {
    final org.apache.kafka.common.TopicPartition partition;
    final String splitId;
    final ArrayDeque<ReplayLine> lines = new ArrayDeque<>();
    long headDue;

    Queue(int partition) {
      this.partition = new org.apache.kafka.common.TopicPartition(topic, partition);
      this.splitId = KafkaPartitionSplit.toSplitId(this.partition);
    }
  }

  /** What the Kafka reader emits, caught here instead of going downstream. */
  private static final class Capture implements ReaderOutput<ReplayLine> {
    final ArrayDeque<ReplayLine> lines = new ArrayDeque<>();

    @Override
    public void collect(ReplayLine record) {
      lines.add(record);
    }

    @Override
    public void collect(ReplayLine record, long timestamp) {
      lines.add(record);
    }

    @Override
    public void emitWatermark(Watermark watermark) {
      // a replay carries no event time: its lines' times are the run's, set downstream
    }

    @Override
    public void markIdle() {}

    @Override
    public void markActive() {}

    @Override
    public SourceOutput<ReplayLine> createOutputForSplit(String splitId) {
      return this;
    }

    @Override
    public void releaseOutputForSplit(String splitId) {}
  }
}
