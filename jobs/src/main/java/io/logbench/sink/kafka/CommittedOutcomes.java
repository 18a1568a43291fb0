package io.logbench.sink.kafka;

import io.logbench.sink.BatchOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The outcomes of an exactly-once Kafka backend, each emitted once the transaction holding its
 * batch is committed. Input 1: the batches as they are handed to the transactional sink; input 2:
 * (checkpoint id, failed commits) for each checkpoint the sink's committer, in the same subtask,
 * has committed, as it commits it.
 *
 * <p>A batch belongs to the checkpoint whose barrier follows it: the sink writes its records into
 * that checkpoint's transaction (both inputs come from the same upstream subtask through
 * aligned checkpoints), and this operator files it under that checkpoint when it snapshots. A
 * commit of checkpoint C releases every batch filed under C or earlier, acknowledged; should the
 * committer report failed commits for C (a transaction the broker aborted or let time out), the
 * batches of C end FAILED as {@value #LOST}. The batches waiting are in this operator's checkpoint: after a restore the committer commits the
 * restored checkpoint's transactions again and says so, which releases them; a batch may then be
 * reported twice, which the ledger counts once.
 *
 * <p>Metrics: counters {@code batchesCommitted}, {@code batchesLost}; gauge {@code
 * batchesAwaitingCommit}.
 */
final class CommittedOutcomes extends AbstractStreamOperator<BatchOutcome>
    implements TwoInputStreamOperator<HandedBatch, Tuple2<Long, Integer>, BatchOutcome>, BoundedMultiInput {

  private static final long serialVersionUID = 1L;

  /** The reason of lines whose transaction was not committed. */
  static final String LOST = "transaction not committed";

  private final String backend;

  /** Batches handed over since the last snapshot. */
  private transient List<HandedBatch> current;
  /** Batches snapshotted, by the checkpoint whose transaction holds them. */
  private transient NavigableMap<Long, List<HandedBatch>> waiting;
  private transient ListState<HandedBatch> state;
  /** Batches waiting, for the gauge (read by the metric reporter's thread). */
  private transient volatile int awaiting;
  private transient Counter committed;
  private transient Counter lost;

  CommittedOutcomes(String backend) {
    this.backend = backend;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    state = context.getOperatorStateStore()
        .getListState(new ListStateDescriptor<>("kafka-awaiting-commit", TypeInformation.of(HandedBatch.class)));
    current = new ArrayList<>();
    waiting = new TreeMap<>();
    if (context.isRestored()) {
      for (HandedBatch b : state.get()) {
        waiting.computeIfAbsent(b.checkpointId, id -> new ArrayList<>()).add(b);
        awaiting++;
      }
      LOG.info("Kafka backend {} restored {} batches awaiting the commit of checkpoints {}.", backend,
          waiting.values().stream().mapToInt(List::size).sum(), waiting.keySet());
    }
  }

  @Override
  public void open() throws Exception {
    super.open();
    committed = getRuntimeContext().getMetricGroup().counter("batchesCommitted");
    lost = getRuntimeContext().getMetricGroup().counter("batchesLost");
    getRuntimeContext().getMetricGroup().gauge("batchesAwaitingCommit", () -> awaiting);
  }

  @Override
  public void processElement1(StreamRecord<HandedBatch> element) {
    HandedBatch b = element.getValue();
    if (b.outcome.lines() == 0) {
      emit(b, HandedBatch.epochNanos(), BatchOutcome.Status.ACKED); // nothing to commit
    } else {
      current.add(b);
      awaiting++;
    }
  }

  @Override
  public void processElement2(StreamRecord<Tuple2<Long, Integer>> element) {
    long checkpoint = element.getValue().f0;
    boolean failed = element.getValue().f1 > 0;
    long now = HandedBatch.epochNanos();
    NavigableMap<Long, List<HandedBatch>> released = waiting.headMap(checkpoint, true);
    for (Map.Entry<Long, List<HandedBatch>> e : released.entrySet()) {
      BatchOutcome.Status status = failed && e.getKey() == checkpoint
          ? BatchOutcome.Status.FAILED : BatchOutcome.Status.ACKED;
      for (HandedBatch b : e.getValue()) {
        emit(b, now, status);
      }
      awaiting -= e.getValue().size();
    }
    released.clear();
  }

  private void emit(HandedBatch b, long now, BatchOutcome.Status status) {
    if (status == BatchOutcome.Status.ACKED) {
      committed.inc();
    } else {
      lost.inc();
      LOG.warn("Kafka backend {}: the transaction holding batch {} was not committed; its {} lines are lost.",
          backend, b.outcome.batchId(), b.outcome.lines());
    }
    output.collect(new StreamRecord<>(b.outcomeAt(now, status, LOST)));
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    long id = context.getCheckpointId();
    if (!current.isEmpty()) {
      for (HandedBatch b : current) {
        b.checkpointId = id;
      }
      waiting.computeIfAbsent(id, x -> new ArrayList<>()).addAll(current);
      current = new ArrayList<>();
    }
    List<HandedBatch> all = new ArrayList<>();
    waiting.values().forEach(all::addAll);
    state.update(all);
  }

  /**
   * When the source held its end of input until its last batches were committed ({@link
   * KafkaBackend#endsAfterCheckpoint}), nothing waits here at the end of the committer's stream.
   * Without that hold, Flink commits the last transaction with its final checkpoint, after the end
   * of input: those outcomes then follow it, too late for operators that act at the end of input.
   */
  @Override
  public void endInput(int inputId) {
    int left = current.size() + waiting.values().stream().mapToInt(List::size).sum();
    if (inputId == 2 && left > 0) {
      LOG.warn("Kafka backend {}: {} batches await the commit of the final checkpoint at the end of input;"
          + " their outcomes will follow it.", backend, left);
    }
  }
}
