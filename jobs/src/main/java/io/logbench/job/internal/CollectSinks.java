package io.logbench.job.internal;

import java.time.Duration;
import java.util.UUID;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.apache.flink.runtime.operators.coordination.OperatorEvent;
import org.apache.flink.runtime.operators.coordination.OperatorEventDispatcher;
import org.apache.flink.runtime.operators.coordination.OperatorEventHandler;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.CoordinatedOperatorFactory;
import org.apache.flink.streaming.api.operators.SimpleUdfStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.StreamSink;
import org.apache.flink.streaming.api.operators.collect.AbstractCollectResultBuffer;
import org.apache.flink.streaming.api.operators.collect.CheckpointedCollectResultBuffer;
import org.apache.flink.streaming.api.operators.collect.CollectResultIterator;
import org.apache.flink.streaming.api.operators.collect.CollectSinkFunction;
import org.apache.flink.streaming.api.operators.collect.CollectSinkOperatorCoordinator;
import org.apache.flink.streaming.api.operators.collect.CollectSinkOperatorFactory;
import org.apache.flink.streaming.api.operators.collect.UncheckpointedCollectResultBuffer;
import org.apache.flink.streaming.api.transformations.LegacySinkTransformation;
import org.apache.flink.util.CloseableIterator;

/**
 * {@code DataStream.collectAsync()} with a collect sink that can be closed before it was opened:
 * a workaround for Flink 2.2.1's FLINK-39330 (apache/flink PR #28474). In 2.2.1,
 * {@code CollectSinkOperator#close()} calls {@code CollectSinkFunction#accumulateFinalResults()},
 * which locks a buffer lock that only {@code initializeState()}/{@code open()} create, and then
 * closes a server thread that only {@code open()} starts. A restart attempt that cancels the sink
 * before it opened (a failover on a cluster that lost a TaskManager does) therefore throws a
 * {@code NullPointerException} from close; Flink escalates it to a fatal error and shuts the
 * TaskManager down. Everything here mirrors Flink's own collect sink (same coordinator, same
 * client-side {@link CollectResultIterator}, same accumulator name and uid scheme), except that
 * the sink function skips its final accumulation and its close when it never opened, and that the
 * client asks for new results every {@link #RETRY_MILLIS} instead of every 100 ms (waiting Flink's
 * default RPC timeout, 10 s, for each answer). Once logbench runs on a Flink release with the fix,
 * keep only the iterator part of this class.
 */
public final class CollectSinks {

  /**
   * How long the client waits before asking the sink again when it had nothing new. Flink's
   * {@code collectAsync()} asks every 100 ms, and each ask is two RPCs (the job's status, built
   * from a fresh archived execution graph, and a request to the sink's coordinator): in an idle
   * run that polling was about a third of the process's CPU outside the JIT, and at 500 ms it
   * still kept the JIT compiling the status path (accumulators stringified, graphs serialized)
   * minutes into a run. Outcomes waiting in the sink only reach the client's summary (progress
   * lines every 10 s, the end of the run) up to this much later; the job itself never waits for
   * the client unless its sink's buffer fills: each ask takes up to {@code
   * collect-sink.batch-size.max} (2 MB), far more than a second of outcomes (about 1,000 batches
   * a second at the fastest runs measured, a few hundred bytes each).
   */
  static final int RETRY_MILLIS = 1000;

  private CollectSinks() {}

  /**
   * The client-side buffer Flink's {@code CollectResultIterator} picks for {@code checkpoints}
   * (its constructor that takes a poll interval wants the buffer made outside): checkpointed for
   * exactly-once checkpoints, so results are handed out only once a checkpoint holds them.
   */
  static <T> AbstractCollectResultBuffer<T> buffer(TypeSerializer<T> serializer, CheckpointConfig checkpoints) {
    if (!checkpoints.isCheckpointingEnabled()) {
      return new UncheckpointedCollectResultBuffer<>(serializer, false);
    }
    return checkpoints.getCheckpointingConsistencyMode() == CheckpointingMode.EXACTLY_ONCE
        ? new CheckpointedCollectResultBuffer<>(serializer)
        : new UncheckpointedCollectResultBuffer<>(serializer, true);
  }

  /**
   * What {@code stream.collectAsync()} does in Flink 2.2.1, with the null-safe sink: adds the sink
   * to the stream's environment and registers the iterator, which the environment binds to the
   * job's client when the job is submitted ({@code executeAsync}).
   */
  public static <T> CloseableIterator<T> collectAsync(DataStream<T> stream) {
    return collectAsync(stream, null);
  }

  /**
   * As {@link #collectAsync(DataStream)}, with the sink's uid {@code uid} instead of Flink's
   * {@code dataStreamCollect_<transformation id>} (null: Flink's): the sink and its iterator use
   * the same one, so a job resumed in a new client can give its sinks uids no earlier job had.
   */
  public static <T> CloseableIterator<T> collectAsync(DataStream<T> stream, String uid) {
    StreamExecutionEnvironment env = stream.getExecutionEnvironment();
    TypeSerializer<T> serializer = stream.getType().createSerializer(env.getConfig().getSerializerConfig());
    String accumulatorName = "dataStreamCollect_" + UUID.randomUUID();
    ReadableConfig config = env.getConfiguration();
    Factory<T> factory = new Factory<>(serializer, accumulatorName,
        config.get(CollectSinkOperatorFactory.MAX_BATCH_SIZE), config.get(CollectSinkOperatorFactory.SOCKET_TIMEOUT));
    Sink<T> sink = new Sink<>(stream, factory);
    sink.name("Data stream collect sink");
    if (uid == null) {
      uid = "dataStreamCollect_" + sink.getTransformation().getId();
    }
    sink.uid(uid);
    CollectResultIterator<T> iterator =
        new CollectResultIterator<>(buffer(serializer, env.getCheckpointConfig()), uid, accumulatorName, RETRY_MILLIS);
    env.addOperator(sink.getTransformation());
    env.registerCollectIterator(iterator);
    return iterator;
  }

  /** The sink of the stream (Flink's {@code CollectStreamSink} takes only Flink's own factory). */
  static final class Sink<T> extends DataStreamSink<T> {
    Sink(DataStream<T> input, Factory<T> factory) {
      super(new LegacySinkTransformation<>(input.getTransformation(), "Collect Stream Sink", factory, 1));
    }
  }

  /**
   * Flink's {@code CollectSinkOperatorFactory} for {@link Operator}: hands the operator its event
   * gateway to the coordinator and registers it for the coordinator's events.
   */
  public static final class Factory<IN> extends SimpleUdfStreamOperatorFactory<Object>
      implements CoordinatedOperatorFactory<Object> {
    private static final long serialVersionUID = 1L;

    private final int socketTimeoutMillis;

    public Factory(TypeSerializer<IN> serializer, String accumulatorName, MemorySize maxBatch,
        Duration socketTimeout) {
      super(new Operator<>(serializer, maxBatch.getBytes(), accumulatorName));
      this.socketTimeoutMillis = (int) socketTimeout.toMillis();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<Object>> T createStreamOperator(StreamOperatorParameters<Object> parameters) {
      Operator<IN> operator = super.createStreamOperator(parameters);
      OperatorID id = parameters.getStreamConfig().getOperatorID();
      OperatorEventDispatcher dispatcher = parameters.getOperatorEventDispatcher();
      operator.function().setOperatorEventGateway(dispatcher.getOperatorEventGateway(id));
      dispatcher.registerEventHandler(id, operator);
      return (T) operator;
    }

    @Override
    public OperatorCoordinator.Provider getCoordinatorProvider(String operatorName, OperatorID operatorId) {
      return new CollectSinkOperatorCoordinator.Provider(operatorId, socketTimeoutMillis);
    }
  }

  /** Flink's {@code CollectSinkOperator} over {@link NullSafeFunction}. */
  public static final class Operator<IN> extends StreamSink<IN> implements OperatorEventHandler {
    private static final long serialVersionUID = 1L;

    public Operator(TypeSerializer<IN> serializer, long maxBytesPerBatch, String accumulatorName) {
      super(new NullSafeFunction<>(serializer, maxBytesPerBatch, accumulatorName));
    }

    @SuppressWarnings("unchecked")
    NullSafeFunction<IN> function() {
      return (NullSafeFunction<IN>) getUserFunction();
    }

    @Override
    public void handleOperatorEvent(OperatorEvent event) {
      // the coordinator sends the sink nothing (as in Flink's operator)
    }

    @Override
    public void close() throws Exception {
      // as Flink's: the results still buffered go to the accumulator, then the function closes
      function().accumulateFinalResults();
      super.close();
    }
  }

  /**
   * Flink's {@code CollectSinkFunction}, whose final accumulation and close do nothing when it was
   * never opened (its buffer, version and server thread exist only once {@code open()} ran).
   */
  public static final class NullSafeFunction<IN> extends CollectSinkFunction<IN> {
    private static final long serialVersionUID = 1L;

    /** open() was entered: its server thread may run and must be closed. */
    private transient boolean openCalled;
    /** open() returned: the buffer, its lock and the version exist. */
    private transient boolean opened;

    public NullSafeFunction(TypeSerializer<IN> serializer, long maxBytesPerBatch, String accumulatorName) {
      super(serializer, maxBytesPerBatch, accumulatorName);
    }

    @Override
    public void open(OpenContext context) throws Exception {
      openCalled = true;
      super.open(context);
      opened = true;
    }

    @Override
    public void accumulateFinalResults() throws Exception {
      // Never opened: nothing was collected, and the client's iterator does not need an
      // accumulator from an attempt that never ran (it reads the one of the attempt that ends).
      if (opened) {
        super.accumulateFinalResults();
      }
    }

    @Override
    public void close() throws Exception {
      if (openCalled) {
        super.close();
      }
    }
  }
}
