package io.logbench.delivery;

import io.logbench.dataset.LineBatch;
import io.logbench.delivery.internal.BatchRecycler;
import io.logbench.delivery.internal.BreachBoard;
import io.logbench.delivery.internal.Deliverer;
import io.logbench.delivery.internal.DeliveryStats;
import io.logbench.delivery.internal.DeliveryTimer;
import io.logbench.delivery.internal.ExecutorTimer;
import io.logbench.metrics.HistogramMetric;
import io.logbench.delivery.internal.MailboxTimer;
import io.logbench.delivery.internal.RecyclingOutput;
import io.logbench.replay.InFlightBatches;
import io.logbench.replay.ReplayFiles;
import io.logbench.replay.ReplayedRange;
import io.logbench.replay.RestoreRecord;
import io.logbench.schedule.Schedule;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BatchOutcome;
import io.logbench.sink.BatchOutcomeTypeInfo;
import io.logbench.sink.BatchSender;
import io.logbench.sink.DeliveryContext;
import io.logbench.sink.DeliverySettings;
import io.logbench.sink.RunContext;
import io.logbench.sink.WindowGrid;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.async.AsyncWaitOperatorFactory;

/**
 * Delivers each batch to one backend under its delivery mode and emits one {@link BatchOutcome}
 * per batch. Apply it with {@link #apply}, which uses Flink's unordered async operator with a
 * capacity of {@code in_flight}: the operator keeps batches in flight in its checkpoints and
 * sends them again after a restore, which, with resends until the backend takes a batch, makes
 * delivery at-least-once.
 *
 * <p>At-least-once resends retryable batches, and the retryable lines of partial answers as a
 * sub-batch of only those lines, after capped exponential backoff with full jitter, for ever;
 * lines rejected for good are counted by reason. Load-test sends once, counts every failure by
 * status, and judges the thresholds per task: the source's stripes are symmetric, so each task's
 * view is the backend's. Once a task crosses one, its later batches end {@code ABORTED} without a
 * request; the breach is logged and, by an operator chained after this one (Flink has no
 * accumulators in async functions), returned in the job's accumulator {@link #BREACHES}.
 *
 * <p>With {@link #restoresIn}, a restored task records the batches it was handed again from the
 * operator's checkpoint (sent by the failed attempt, and sent once more now) in {@value
 * ReplayFiles#RESTORES}: it checkpoints the ids it may hold in flight ({@link InFlightBatches}, a
 * few ids per task) and, after a restore, writes one {@link RestoreRecord} of kind {@code
 * in-flight} once those batches are handed again.
 *
 * <p>Metrics, in group {@code backend=<name>}: counters {@code linesSent}, {@code linesAcked},
 * {@code linesRetried}, {@code requests}, {@code failedRequests}, {@code linesFailed_<class>}
 * (4xx, 429, 5xx, io, timeout, aborted, other; also as {@code linesFailed} in group {@code
 * cause=<class>}), {@code requestsResent_<cause>} (429, 5xx, io,
 * timeout, partial, 4xx, other), gauge {@code inFlightRequests}, histograms
 * {@code latencyFromScheduleMicros} and {@code serviceTimeMicros}.
 *
 * <p>Threads: applied with {@link #apply}, a batch is encoded and written from the task's own
 * thread, and its answer comes back from the HTTP I/O thread, timed there, into a queue the task
 * runs at its next wake-up or, within 50 ms or when {@code in_flight} is full, by mail ({@link
 * MailboxTimer}); only
 * timeouts and backoff waits go through a timer thread, which hands them to the mailbox too
 * ({@link MailboxTimer}). So every step of a delivery runs on the task thread, without a delivery
 * thread of its own between the task and the I/O thread.
 *
 * <p>A batch every line of which the backend took at its first send goes back to the task
 * thread's {@link io.logbench.dataset.LineBatchPool} once its outcome has left the operator, for
 * the source chained before to fill again ({@link BatchRecycler}).
 */
public final class DeliveryFunction extends RichAsyncFunction<LineBatch, BatchOutcome>
    implements CheckpointedFunction, CheckpointListener {

  private static final long serialVersionUID = 1L;

  /** Accumulator holding the {@link ThresholdBreach}es of a job (name prefix; suffix: backend). */
  public static final String BREACHES = "logbench.breaches.";

  private final BackendSpec spec;
  private final DeliverySettings settings;
  private final RunContext run;
  private final WindowGrid grid;
  private final Schedule schedule;

  private transient BatchSender sender;
  private transient DeliveryTimer timer;
  /** The task's mailbox, set by {@link #apply}'s operator factory before {@link #open}. */
  private transient MailboxExecutor mailbox;
  /** Gives delivered batches back to the source; set with {@link #mailbox}, else none is. */
  private transient BatchRecycler recycler;
  private transient Deliverer deliverer;
  /** Unique per job build: where the chained {@link BreachReporter} finds this task's stats. */
  private final String boardKey = java.util.UUID.randomUUID().toString();
  private transient String boardEntry;
  private ReplayFiles restores;
  private transient InFlightBatches inFlight;
  private transient ListState<Long> inFlightState;
  private transient long restoredCheckpoint;

  /**
   * A delivery function for one backend.
   *
   * @param context the delivery settings, the run (its lines, id and first index), the grid, and
   *     the run's schedule: with the schedule a task knows when the run started (for the
   *     thresholds' delay); without, it counts from the first batch's scheduled time
   */
  public DeliveryFunction(BackendSpec spec, DeliveryContext context) {
    this.spec = spec;
    this.settings = context.delivery();
    this.run = context.run();
    this.grid = context.grid();
    this.schedule = context.schedule();
  }

  /** Records what a restore sends again in {@code files} (off unless set). */
  public DeliveryFunction restoresIn(ReplayFiles files) {
    this.restores = files;
    return this;
  }

  /**
   * Applies this function to {@code batches}. The async operator has no timeout of its own in
   * either mode: the {@link Deliverer} ends every send by its answer or by its answer deadline
   * (the spec's {@link BackendSpec#answerTimeout}), one timer task for all of them, so a batch
   * never waits for ever. An operator timeout on top of that cost a Flink timer scheduled and
   * cancelled per batch, about 1% of a run's CPU (docs/benchmarks.md, eighteenth round).
   */
  public SingleOutputStreamOperator<BatchOutcome> apply(DataStream<LineBatch> batches) {
    String name = spec.name();
    SingleOutputStreamOperator<BatchOutcome> delivered =
        batches
            .transform("deliver[" + name + "]", BatchOutcomeTypeInfo.INSTANCE, operatorFactory())
            .name("deliver[" + name + "]")
            .uid("deliver-" + name)
            .setParallelism(batches.getParallelism());
    return delivered
        .map(new BreachReporter(boardKey, name))
        .name("breaches[" + name + "]")
        .uid("breaches-" + name)
        .setParallelism(batches.getParallelism());
  }

  /** The operator {@link #apply} runs this function in. */
  AsyncWaitOperatorFactory<LineBatch, BatchOutcome> operatorFactory() {
    return new MailboxAsyncFactory(this, NO_OPERATOR_TIMEOUT, settings.inFlight());
  }

  /** Flink's async operator registers no timer per element with a timeout of 0. */
  private static final long NO_OPERATOR_TIMEOUT = 0;

  @Override
  public void open(OpenContext openContext) {
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    sender = spec.open(run);
    String timerThread = "logbench-delivery-" + spec.name() + "-" + subtask;
    // open() runs on the task thread, the one the mailbox runs its mails on
    timer = mailbox != null
        ? new MailboxTimer(mailbox, Thread.currentThread(), timerThread)
        : new ExecutorTimer(timerThread);
    DeliveryStats stats = new DeliveryStats();
    deliverer =
        Deliverer.builder()
            .backend(spec.name(), subtask)
            .settings(settings)
            .sender(sender)
            .grid(grid)
            .timer(timer)
            .clock(DeliveryFunction::epochNanos)
            .random(new SplittableRandom(spec.name().hashCode() * 31L + subtask))
            .stats(stats)
            .schedule(schedule, run.firstIndex())
            .answerTimeout(spec.answerTimeout(settings.timeout()))
            .build();
    registerMetrics(getRuntimeContext().getMetricGroup().addGroup("backend", spec.name()), stats);
    boardEntry = boardKey + "/" + subtask;
    BreachBoard.put(boardEntry, stats);
  }

  private static void registerMetrics(MetricGroup group, DeliveryStats stats) {
    group.counter("linesSent", stats.linesSent);
    group.counter("linesAcked", stats.linesAcked);
    group.counter("linesRetried", stats.linesRetried);
    group.counter("requests", stats.requests);
    group.counter("failedRequests", stats.failedRequests);
    for (Map.Entry<String, org.apache.flink.metrics.Counter> e : stats.requestsResentByCause().entrySet()) {
      group.counter("requestsResent_" + e.getKey(), e.getValue());
    }
    for (Map.Entry<String, org.apache.flink.metrics.Counter> e : stats.linesFailedByClass().entrySet()) {
      group.counter("linesFailed_" + e.getKey(), e.getValue());
      // the same counter with the class as a label, so a dashboard sums failures by cause
      group.addGroup("cause", e.getKey()).counter("linesFailed", e.getValue());
    }
    group.gauge("inFlightRequests", stats::inFlightRequests);
    group.histogram("latencyFromScheduleMicros", new HistogramMetric(stats::latencyFromSchedule));
    group.histogram("serviceTimeMicros", new HistogramMetric(stats::serviceTime));
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    // every subtask sees every id (union), so a rescaled restore still knows its in-flight batches
    inFlightState = context.getOperatorStateStore()
        .getUnionListState(new ListStateDescriptor<>("logbench-in-flight-batches", Types.LONG));
    inFlight = new InFlightBatches(settings.inFlight());
    restoredCheckpoint = context.getRestoredCheckpointId().orElse(-1);
    if (context.isRestored() && restores != null) {
      inFlight.restore(inFlightState.get());
    }
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    writeRestoreRecord();
    inFlightState.update(inFlight.snapshot());
    if (recycler != null) {
      recycler.snapshotTaken(context.getCheckpointId());
    }
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    if (recycler != null) {
      recycler.checkpointEnded(checkpointId);
    }
  }

  @Override
  public void notifyCheckpointAborted(long checkpointId) {
    if (recycler != null) {
      recycler.checkpointEnded(checkpointId);
    }
  }

  @Override
  public void asyncInvoke(LineBatch batch, ResultFuture<BatchOutcome> resultFuture) {
    long id = batch.batchId();
    if (inFlight.handed(id, batch.firstSeq(), batch.count())) {
      writeRestoreRecord(); // the restored batches are all handed again: this one is new
    }
    deliverer.deliver(batch, o -> {
      inFlight.completed(id);
      if (recycler != null) {
        recycler.delivered(o, batch);
      }
      resultFuture.complete(List.of(o));
    }, resultFuture::completeExceptionally);
  }

  /** Writes the in-flight restore record once, if a restore left batches to send again. */
  private void writeRestoreRecord() {
    if (!inFlight.recordDue()) {
      return;
    }
    List<ReplayedRange> replayed = inFlight.takeReplayed();
    if (replayed.isEmpty()) {
      return;
    }
    var task = getRuntimeContext().getTaskInfo();
    RestoreRecord record = new RestoreRecord(RestoreRecord.IN_FLIGHT, System.currentTimeMillis(), spec.name(),
        task.getIndexOfThisSubtask(), task.getAttemptNumber(), restoredCheckpoint, List.of(), replayed);
    try {
      restores.append(record);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("Could not record the restore of backend " + spec.name()
          + "'s delivery in " + restores.restoresFile() + ": " + e.getMessage(), e);
    }
  }

  /** Unreachable: the operator has no timeout ({@link #apply}); failing restores the batch from the last checkpoint. */
  @Override
  public void timeout(LineBatch batch, ResultFuture<BatchOutcome> resultFuture) {
    resultFuture.completeExceptionally(new IllegalStateException(
        "Batch " + batch.batchId() + " of backend " + spec.name() + " timed out in the operator, which has no timeout."));
  }

  @Override
  public void close() throws Exception {
    if (inFlight != null) {
      writeRestoreRecord();
    }
    if (timer instanceof AutoCloseable c) {
      c.close();
    }
    if (sender != null) {
      sender.close();
    }
  }

  /**
   * Flink's unordered async operator, which also hands the task's mailbox to the function: the
   * operator's own {@code MailboxExecutor}, so the function's answers are mails the operator
   * processes while it waits for room ({@code in_flight}) or for its last batches at the end.
   */
  private static final class MailboxAsyncFactory extends AsyncWaitOperatorFactory<LineBatch, BatchOutcome> {
    private static final long serialVersionUID = 1L;
    private final DeliveryFunction function;

    MailboxAsyncFactory(DeliveryFunction function, long timeoutMillis, int capacity) {
      super(function, timeoutMillis, capacity, AsyncDataStream.OutputMode.UNORDERED);
      this.function = function;
    }

    @Override
    public <T extends StreamOperator<BatchOutcome>> T createStreamOperator(
        StreamOperatorParameters<BatchOutcome> parameters) {
      BatchRecycler recycler = new BatchRecycler();
      StreamOperatorParameters<BatchOutcome> recycling = new StreamOperatorParameters<>(parameters.getContainingTask(),
          parameters.getStreamConfig(), new RecyclingOutput(parameters.getOutput(), recycler),
          parameters::getProcessingTimeService, parameters.getOperatorEventDispatcher(), parameters.getMailboxExecutor());
      T operator = super.createStreamOperator(recycling);
      function.mailbox = getMailboxExecutor();
      function.recycler = recycler;
      return operator;
    }
  }

  /** Epoch nanoseconds, as the source schedules by. */
  static long epochNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }
}
