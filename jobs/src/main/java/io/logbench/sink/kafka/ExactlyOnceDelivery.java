package io.logbench.sink.kafka;

import io.logbench.dataset.LineBatch;
import io.logbench.schemas.LogRecord;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchOutcomeTypeInfo;
import io.logbench.sink.DeliveryContext;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessageTypeInfo;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.streaming.runtime.operators.sink.CommitterOperatorFactory;
import org.apache.flink.streaming.runtime.operators.sink.SinkWriterOperatorFactory;
import org.apache.flink.util.Collector;

/**
 * The delivery of an {@code exactly_once} Kafka backend: each batch's lines go through Flink's
 * transactional {@link KafkaSink}, and its outcome comes when the transaction holding it is
 * committed, not when it is handed over.
 *
 * <p>{@code sinkTo} would hide the sink's committer, and with it the moment of each commit. So the
 * sink's writer and committer are wired here as Flink's sink translator wires them (the same
 * operator factories, parallelism, forward edges, and the sink's own post-commit co-location),
 * and the committer's stream, which Flink's committer emits right after it commits a checkpoint's
 * transactions (KafkaSink is a {@code SupportsPostCommitTopology}), feeds {@link
 * CommittedOutcomes} together with the batches. Subtask {@code i} of the writer, the committer
 * and {@link CommittedOutcomes} see the same batches, so a commit reported to subtask {@code i}
 * covers exactly the batches it holds for that checkpoint. These edges take part in aligned
 * checkpoints only (as Flink does for sink topologies): a batch's checkpoint is the barrier after
 * it.
 *
 * <p>Flink commits the transaction of a run's last batches with its final checkpoint, after the
 * end of input has reached the operators downstream (the ledger writes its files then). The
 * run's source therefore holds its end of input until a checkpoint after its last batch has
 * completed ({@link KafkaBackend#endsAfterCheckpoint}): the writer, the committer and the source
 * run in one task, which Flink notifies of a completed checkpoint in one go, so the commit and
 * its outcomes precede the end of input.
 *
 * <p>Operator uids, per backend {@code <name>}: {@code kafka-records-<name>}, {@code
 * kafka-writer-<name>}, {@code kafka-committer-<name>}, {@code kafka-commits-<name>}, {@code
 * kafka-handed-<name>}, {@code kafka-committed-<name>}.
 */
final class ExactlyOnceDelivery {

  private ExactlyOnceDelivery() {}

  static DataStream<BatchOutcome> wire(KafkaBackend backend, DataStream<LineBatch> batches, DeliveryContext context) {
    StreamExecutionEnvironment env = batches.getExecutionEnvironment();
    String name = backend.name();
    if (!env.isChainingEnabled()) {
      throw new IllegalStateException("The exactly_once Kafka backend " + name + " needs operator chaining"
          + " (pipeline.operator-chaining: true): it reports a batch when the sink's committer, chained to"
          + " the source, has committed it.");
    }
    if (!env.getConfiguration().get(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH)) {
      throw new IllegalStateException("The exactly_once Kafka backend " + name + " needs"
          + " execution.checkpointing.checkpoints-after-tasks-finish: true: its source ends only after a"
          + " checkpoint commits its last batches, and without that setting Flink stops checkpointing once"
          + " any task of the job has finished.");
    }
    if (!env.getCheckpointConfig().isCheckpointingEnabled()
        || env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.BATCH) {
      throw new IllegalStateException("The exactly_once Kafka backend " + name + " needs a streaming job with"
          + " checkpointing: its transactions commit with checkpoints (the generate job always checkpoints).");
    }
    int parallelism = batches.getParallelism();
    KafkaSink<LogRecord> sink = backend.exactlyOnceSink(context.run().runId());
    TypeInformation<CommittableMessage<KafkaCommittable>> committables =
        CommittableMessageTypeInfo.of(sink::getCommittableSerializer);

    DataStream<LineBatch> handedOver = alignedForward(batches);
    SingleOutputStreamOperator<CommittableMessage<KafkaCommittable>> committed =
        handedOver
            .flatMap(new LineBatchToLogRecords(context.run().streams()))
            .returns(new AvroTypeInfo<>(LogRecord.class))
            .name("kafka " + name + " records")
            .uid("kafka-records-" + name)
            .setParallelism(parallelism)
            .transform("kafka " + name + " writer", committables, new SinkWriterOperatorFactory<>(sink))
            .uid("kafka-writer-" + name)
            .setParallelism(parallelism)
            .transform("kafka " + name + " committer", committables,
                new CommitterOperatorFactory<>(sink, false, true))
            .uid("kafka-committer-" + name)
            .setParallelism(parallelism);
    // what the translator does with the committer's stream: KafkaSink co-locates its writer and
    // committer there
    sink.addPostCommitTopology(committed);
    DataStream<Tuple2<Long, Integer>> commits =
        committed
            .flatMap(new Commits())
            .returns(Types.TUPLE(Types.LONG, Types.INT))
            .name("kafka " + name + " commits")
            .uid("kafka-commits-" + name)
            .setParallelism(parallelism);
    DataStream<HandedBatch> handed =
        handedOver
            .map(new HandedBatch.Of(name, context.grid()))
            .returns(TypeInformation.of(HandedBatch.class))
            .name("kafka " + name + " handed over")
            .uid("kafka-handed-" + name)
            .setParallelism(parallelism);
    return alignedForward(handed)
        .connect(alignedForward(commits))
        .transform("kafka " + name + " committed", BatchOutcomeTypeInfo.INSTANCE,
            new CommittedOutcomes(name))
        .uid("kafka-committed-" + name)
        .setParallelism(parallelism);
  }

  /** A forward edge that never takes part in an unaligned checkpoint. */
  private static <T> DataStream<T> alignedForward(DataStream<T> in) {
    DataStream<T> forward = in.forward();
    ((PartitionTransformation<T>) forward.getTransformation()).getPartitioner().disableUnalignedCheckpoints();
    return forward;
  }

  /** (checkpoint id, failed commits) of each checkpoint the committer reports committed. */
  static final class Commits implements FlatMapFunction<CommittableMessage<KafkaCommittable>, Tuple2<Long, Integer>> {
    private static final long serialVersionUID = 1L;

    @Override
    public void flatMap(CommittableMessage<KafkaCommittable> message, Collector<Tuple2<Long, Integer>> out) {
      if (message instanceof CommittableSummary<KafkaCommittable> summary) {
        out.collect(Tuple2.of(summary.getCheckpointIdOrEOI(), summary.getNumberOfFailedCommittables()));
      }
    }
  }
}
