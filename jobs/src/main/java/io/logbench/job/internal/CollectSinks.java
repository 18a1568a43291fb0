package io.logbench.job.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.UUID;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
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
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.CoordinatedOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
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
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
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

  /**
   * Records of a stream per chunk between the job and the client: at most this many, and a chunk
   * ends at every checkpoint barrier and at the end of the input.
   */
  public static final int CHUNK = 256;

  /**
   * As {@link #collectAsync(DataStream, String)}, with the records travelling to the client in
   * chunks ({@link Chunks}) and handed out one by one again. Flink's collect path costs per record
   * on four threads: the sink serializes each one into its buffer, its server thread writes each to
   * the socket in two writes, the coordinator reads each with five reads (the length one byte at a
   * time: its stream is not buffered), and the client deserializes each. At 1,000 outcomes a second
   * that was 7% of a run's CPU (docs/benchmarks.md, thirteenth round). A checkpointed collect hands
   * the client a record only once a checkpoint holds it, so a chunk that ends at the barrier
   * reaches the client as soon as its records would have.
   */
  public static <T> CloseableIterator<T> collectInChunks(DataStream<T> stream, String uid) {
    DataStream<List<T>> chunks = stream
        .transform("chunks", new ListTypeInfo<>(stream.getType()), new Chunks<T>(CHUNK))
        .setParallelism(stream.getParallelism())
        .uid(uid + "-chunks");
    return new Flattened<>(collectAsync(chunks, uid));
  }

  /**
   * Gathers records into lists of up to {@code max}, emitted when full, before each checkpoint
   * barrier and at the end of the input, so it holds nothing at a checkpoint and has no state.
   */
  public static final class Chunks<T> extends AbstractStreamOperator<List<T>>
      implements OneInputStreamOperator<T, List<T>>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    private final int max;
    private transient ArrayList<T> pending;

    public Chunks(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("A chunk holds at least one record; got " + max + ".");
      }
      this.max = max;
    }

    @Override
    public void open() throws Exception {
      super.open();
      pending = new ArrayList<>();
    }

    @Override
    public void processElement(StreamRecord<T> element) {
      pending.add(element.getValue());
      if (pending.size() >= max) {
        emit();
      }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
      super.prepareSnapshotPreBarrier(checkpointId);
      emit();
    }

    @Override
    public void endInput() {
      emit();
    }

    private void emit() {
      if (!pending.isEmpty()) {
        output.collect(new StreamRecord<>(pending));
        pending = new ArrayList<>();
      }
    }
  }

  /** The records of an iterator of chunks, one by one. */
  static final class Flattened<T> implements CloseableIterator<T> {
    private final CloseableIterator<List<T>> chunks;
    private Iterator<T> current = Collections.emptyIterator();

    Flattened(CloseableIterator<List<T>> chunks) {
      this.chunks = chunks;
    }

    @Override
    public boolean hasNext() {
      while (!current.hasNext()) {
        if (!chunks.hasNext()) {
          return false;
        }
        current = chunks.next().iterator();
      }
      return true;
    }

    @Override
    public T next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return current.next();
    }

    @Override
    public void close() throws Exception {
      chunks.close();
    }
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
